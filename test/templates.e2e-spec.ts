import { TemplatesService } from '../src/templates/templates.service';
import { createTestApp, TestAccount, TestApp } from './support/app';
import { chatappBody, mediaDir, smsBody } from './support/templates-helpers';

describe('Templates: create, read, list (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;

  beforeAll(async () => {
    t = await createTestApp({ env: { MEDIA_DIR: mediaDir() } });
    acc = await t.createAccount();
  });
  afterAll(async () => {
    await t.close();
  });

  const post = (body: unknown, key = acc.key) => t.http().post('/api/v2/templates').set('X-API-Key', key).send(body as object);
  const get = (id: string, key = acc.key) => t.http().get(`/api/v2/templates/${id}`).set('X-API-Key', key);
  let seq = 0;
  /** A unique valid name per test (names are letters and underscores only). */
  const uniq = (base: string) => `${base}_${'abcdefghijklmnopqrstuvwxyz'[seq % 26]}${'abcdefghijklmnopqrstuvwxyz'[Math.floor(seq++ / 26) % 26]}`;

  async function expect400(body: Record<string, unknown>, field: string): Promise<void> {
    const res = await post({ ...body, name: body.name ?? uniq('bad') });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect(res.body.error).toContain(field);
  }

  describe('each category', () => {
    it('chatapp (official): 201 pending, submitted via the platform sender, every Template field', async () => {
      const res = await post(chatappBody({ name: uniq('order_update'), footer: 'Thanks', headerType: 'text', headerValue: 'Order news' }));
      expect(res.status).toBe(201);
      expect(res.body.success).toBe(true);
      expect(res.body.message).toEqual(expect.any(String));
      const tpl = res.body.data.template;
      expect(tpl).toMatchObject({
        category: 'chatapp', subType: 'utility', status: 'pending', language: 'en', provider: 'official',
        body: 'Hi {{1}}, your order {{2}} has shipped', headerType: 'text', headerValue: 'Order news', footer: 'Thanks',
        bodyParameters: [{ index: 1, label: 'Sara' }, { index: 2, label: 'A-100' }], parameters: ['Sara', 'A-100'],
        indexedPlaceholders: ['{{1}}', '{{2}}'], officialSenderId: 'platform', isPlatformNumber: true, isDefault: false,
        allowsHeaderMediaOverride: false, headerAssetId: null, headerPreviewUrl: null, buttons: [], urlButtonVariables: [],
        content: null, manualProvider: null,
        officialSender: { id: 'platform', scope: 'platform', isPlatform: true, isDefault: true, phoneNumber: '+966500000001', label: expect.stringContaining('+966500000001'), displayName: expect.any(String) },
      });
      expect(tpl.id).toMatch(/^tpl_/);
      expect(tpl.providerTemplateId).toEqual(expect.any(String));
      expect(new Date(tpl.createdAt).toISOString()).toBe(tpl.createdAt);
      const read = await get(tpl.id);
      expect(read.status).toBe(200);
      expect(read.body).toEqual({ success: true, data: tpl });
    });

    it('sms: 201 with only id, name, category, status (active)', async () => {
      const name = uniq('login_code');
      const res = await post(smsBody({ name }));
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ success: true, data: { template: { id: expect.stringMatching(/^tpl_/), name, category: 'sms', status: 'active' } } });
      const full = await get(res.body.data.template.id);
      expect(full.body.data).toMatchObject({ content: 'Your code is {{1}}', provider: 'internal', officialSender: null, isPlatformNumber: false, indexedPlaceholders: ['{{1}}'] });
    });

    it('message: 201 active, internal', async () => {
      const res = await post({ name: uniq('welcome'), category: 'message', subType: 'free', content: 'Welcome aboard' });
      expect(res.status).toBe(201);
      expect(res.body.data.template).toMatchObject({ category: 'message', status: 'active', provider: 'internal', content: 'Welcome aboard', language: null });
    });

    it('email: 201 active with emailSubject', async () => {
      const res = await post({ name: uniq('newsletter'), category: 'email', subType: 'marketing', content: '<p>Hello {{1}}</p>', emailSubject: 'News' });
      expect(res.status).toBe(201);
      expect(res.body.data.template).toMatchObject({ category: 'email', status: 'active', emailSubject: 'News', content: '<p>Hello {{1}}</p>' });
    });

    it('user_session via templateTarget: web-session template, active, no official sender', async () => {
      const res = await post(chatappBody({ name: uniq('session_note'), templateTarget: 'user_session', bodyParameters: undefined }));
      expect(res.status).toBe(201);
      expect(res.body.data.template).toMatchObject({ provider: 'user_session', status: 'active', officialSender: null, officialSenderId: null, footer: null });
    });

    it('user_session via provider, URL and phone buttons stored', async () => {
      const res = await post(chatappBody({
        name: uniq('session_btn'), provider: 'user_session',
        buttons: [{ type: 'url', text: 'Track', url: 'https://shop.example/track/{{1}}', urlExample: 'https://shop.example/track/ABC' }, { type: 'phone', text: 'Call us', url: '+966500000002' }],
      }));
      expect(res.status).toBe(201);
      expect(res.body.data.template).toMatchObject({ provider: 'user_session', urlButtonVariables: ['ABC'] });
      expect(res.body.data.template.buttons).toHaveLength(2);
    });

    it('manual link: approved once the sandbox provider knows it in the sender\'s business account; records providerTemplateId and manualProvider', async () => {
      const sender = await t.admin('post', `/admin/v1/accounts/${acc.id}/official-senders`).send({ displayName: 'Acme', wabaId: 'waba_linked' });
      const name = uniq('linked');
      const registered = await t.admin('post', '/admin/v1/sandbox/official-templates').send({ wabaId: 'waba_linked', name, language: 'en', variableCount: 2 });
      expect(registered.status).toBe(201);
      const providerTemplateId = registered.body.data.providerTemplateId as string;
      const res = await post({ name, category: 'chatapp', subType: 'utility', creationMode: 'manual_external_id', officialSenderId: sender.body.data.officialSender.id, providerTemplateId, manualVariableCount: 2 });
      expect(res.status).toBe(201);
      expect(res.body.data.template).toMatchObject({ status: 'approved', providerTemplateId, manualProvider: 'sandbox', creationMode: 'manual_external_id', indexedPlaceholders: ['{{1}}', '{{2}}'] });
      const forSend = await t.app.get(TemplatesService).findForSend(acc.id, res.body.data.template.id);
      expect(forSend).toMatchObject({ variableCount: 2, providerTemplateId, status: 'approved', provider: 'official' });
    });

    it('OTP chatapp template with copy_code options', async () => {
      const res = await post({ name: uniq('otp_code'), category: 'chatapp', subType: 'otp', body: 'Code {{1}}', bodyParameters: [{ index: 1, label: '123456' }], otpType: 'copy_code', codeExpirationMinutes: 90, addSecurityRecommendation: true, otpButtonText: 'Copy' });
      expect(res.status).toBe(201);
      expect(res.body.data.template.otp).toMatchObject({ otpType: 'copy_code', codeExpirationMinutes: 90, addSecurityRecommendation: true });
    });
  });

  describe('validation rules (400 VALIDATION_ERROR naming the field)', () => {
    it('name with uppercase letters', () => expect400(chatappBody({ name: 'OrderUpdate' }), 'name'));
    it('name with digits or dashes', () => expect400(smsBody({ name: 'order-2' }), 'name'));
    it('name missing', async () => {
      const res = await post({ category: 'sms', subType: 'otp', content: 'x' });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('name');
    });
    it('category not in the enum', () => expect400(smsBody({ category: 'fax' }), 'category'));
    it('subType not in the enum', () => expect400(smsBody({ subType: 'promo' }), 'subType'));
    it('headerType not in the enum', () => expect400(chatappBody({ headerType: 'audio' }), 'headerType'));
    it('otpType not in the enum', () => expect400(chatappBody({ subType: 'otp', otpType: 'magic' }), 'otpType'));
    it('provider not in the enum', () => expect400(chatappBody({ provider: 'carrier_pigeon' }), 'provider'));
    it('templateTarget not in the enum', () => expect400(chatappBody({ templateTarget: 'fax' }), 'templateTarget'));
    it('creationMode not in the enum', () => expect400(chatappBody({ creationMode: 'guess' }), 'creationMode'));
    it('unknown field', () => expect400(smsBody({ colour: 'red' }), 'colour'));
    it('emailSubject required for email', () => expect400({ category: 'email', subType: 'utility', content: '<p>x</p>' }, 'emailSubject'));
    it('codeExpirationMinutes below 1', () => expect400(chatappBody({ subType: 'otp', otpType: 'copy_code', codeExpirationMinutes: 0 }), 'codeExpirationMinutes'));
    it('codeExpirationMinutes above 90', () => expect400(chatappBody({ subType: 'otp', otpType: 'copy_code', codeExpirationMinutes: 91 }), 'codeExpirationMinutes'));
    it('zeroTapTermsAccepted must be true for zero_tap', () =>
      expect400(chatappBody({ subType: 'otp', otpType: 'zero_tap', packageName: 'com.example.app', signatureHash: 'K8a/AINcGX7', zeroTapTermsAccepted: false }), 'zeroTapTermsAccepted'));
    it('one_tap needs packageName and signatureHash', () => expect400(chatappBody({ subType: 'otp', otpType: 'one_tap', packageName: 'com.example.app' }), 'signatureHash'));
    it('zero_tap needs packageName and signatureHash', () => expect400(chatappBody({ subType: 'otp', otpType: 'zero_tap', zeroTapTermsAccepted: true }), 'packageName'));
    it('manual_external_id needs providerTemplateId', () => expect400({ category: 'chatapp', subType: 'utility', creationMode: 'manual_external_id', manualVariableCount: 1 }, 'providerTemplateId'));
    it('manual_external_id needs manualVariableCount', () => expect400({ category: 'chatapp', subType: 'utility', creationMode: 'manual_external_id', providerTemplateId: '1' }, 'manualVariableCount'));
    it('body placeholders with a gap', () => expect400(chatappBody({ body: 'Hi {{1}} and {{3}}', bodyParameters: [{ index: 1, label: 'a' }, { index: 3, label: 'c' }] }), '{{2}} is missing'));
    it('body placeholders not numbered', () => expect400(chatappBody({ body: 'Hi {{name}}', bodyParameters: undefined }), 'body placeholders'));
    it('bodyParameters indexes must match the placeholders', () => expect400(chatappBody({ bodyParameters: [{ index: 1, label: 'a' }] }), 'bodyParameters'));
    it('bodyParameters required for an official body with placeholders', () => expect400(chatappBody({ bodyParameters: undefined }), 'bodyParameters'));
    it('URL button must carry {{1}} in the URL', () => expect400(chatappBody({ buttons: [{ type: 'url', text: 'Open', url: 'https://shop.example/track' }] }), 'buttons[0].url'));
    it('phone button must be a dialable number', () => expect400(chatappBody({ buttons: [{ type: 'phone', text: 'Call', url: 'call-me-maybe' }] }), 'buttons[0].url'));
    // An array element slipped past ValidateNested and reached the rules as a button: it was a 500.
    it('buttons must hold objects, not arrays', () => expect400(chatappBody({ buttons: [[]] }), 'buttons must be a list of objects'));
    it('bodyParameters must hold objects, not arrays', () => expect400(chatappBody({ bodyParameters: [[]] }), 'bodyParameters must be a list of objects'));
    it('headerValue only with headerType text', () => expect400(chatappBody({ headerType: 'image', headerValue: 'Hello', headerAssetId: 'hma_x' }), 'headerValue'));
    it('headerValue required when headerType is text', () => expect400(chatappBody({ headerType: 'text' }), 'headerValue'));
    it('media headerType needs a header file', () => expect400(chatappBody({ headerType: 'image' }), 'headerType image'));
    it('footer not allowed on user_session templates', () => expect400(chatappBody({ templateTarget: 'user_session', footer: 'Bye' }), 'footer'));
    it('body required for chatapp', () => expect400({ category: 'chatapp', subType: 'utility' }, 'body'));
    it('content required for sms', () => expect400({ category: 'sms', subType: 'utility' }, 'content'));
    it('language must be a language code', () => expect400(chatappBody({ language: 'English' }), 'language'));
    it('officialSenderId must be a sender of the account', () => expect400(chatappBody({ officialSenderId: 'osn_someone_else' }), 'officialSenderId'));
    it('OTP fields only with subType otp', () => expect400(chatappBody({ otpType: 'copy_code' }), 'subType otp'));
    it('headerValue cannot carry placeholders', () => expect400(chatappBody({ headerType: 'text', headerValue: 'Hi {{1}}' }), 'headerValue'));
    it('footer cannot carry placeholders', () => expect400(chatappBody({ footer: 'Bye {{1}}' }), 'footer'));
    it('providerTemplateId only with manual_external_id', () => expect400(chatappBody({ providerTemplateId: '123' }), 'providerTemplateId'));
    it('emailSubject only for email', () => expect400(smsBody({ emailSubject: 'Hi' }), 'emailSubject'));
    it('buttons only on chatapp templates', () => expect400(smsBody({ buttons: [{ type: 'phone', text: 'Call', url: '+966500000002' }] }), 'buttons'));
    it('manualVariableCount must agree with a given body', () =>
      expect400({ category: 'chatapp', subType: 'utility', creationMode: 'manual_external_id', providerTemplateId: '1', manualVariableCount: 2, body: 'Hi {{1}}' }, 'manualVariableCount'));
    it('chatapp provider cannot be internal', () => expect400(chatappBody({ provider: 'internal' }), 'provider'));
    it('nothing is stored by a rejected request', async () => {
      await post(chatappBody({ name: 'never_stored', language: 'English' }));
      const list = await t.http().get('/api/v2/templates?name=never_stored').set('X-API-Key', acc.key);
      expect(list.body.data.templates).toEqual([]);
    });
  });

  describe('access', () => {
    it('409 TEMPLATE_EXISTS for the same name, category and language; other language is fine', async () => {
      const name = uniq('dup_check');
      expect((await post(chatappBody({ name }))).status).toBe(201);
      const again = await post(chatappBody({ name }));
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ success: false, code: 'TEMPLATE_EXISTS' });
      expect((await post(chatappBody({ name, language: 'ar' }))).status).toBe(201);
      expect((await post(smsBody({ name }))).status).toBe(201);
      const other = await t.createAccount();
      expect((await post(chatappBody({ name }), other.key)).status).toBe(201);
    });

    it('concurrent creates of one name: exactly one 201, the others 409', async () => {
      const name = uniq('race_name');
      const results = await Promise.all(Array.from({ length: 5 }, () => post(smsBody({ name }))));
      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
      for (const r of results.filter((x) => x.status === 409)) expect(r.body.code).toBe('TEMPLATE_EXISTS');
    });

    it('403 FORBIDDEN when the phone is not verified', async () => {
      const unverified = await t.createAccount({ phoneVerified: false });
      const res = await post(smsBody(), unverified.key);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    });

    it('403 FORBIDDEN for a member key without messages:create; messages:read can read', async () => {
      const created = await post(smsBody({ name: uniq('member_read') }));
      const member = await t.memberKey(acc.id, ['messages:read']);
      expect((await post(smsBody({ name: uniq('member_write') }), member)).status).toBe(403);
      expect((await get(created.body.data.template.id, member)).status).toBe(200);
    });

    it("another account's template is 404 NOT_FOUND and invisible to findForSend", async () => {
      const created = await post(smsBody({ name: uniq('private_one') }));
      const other = await t.createAccount();
      const res = await get(created.body.data.template.id, other.key);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, code: 'NOT_FOUND', error: 'Template not found' });
      await expect(t.app.get(TemplatesService).findForSend(other.id, created.body.data.template.id)).resolves.toBeNull();
    });

    it('a default template (admin) is visible to every account, in GET, list and findForSend', async () => {
      const created = await t.admin('post', '/admin/v1/templates/defaults').send(smsBody({ name: uniq('platform_default') }));
      expect(created.status).toBe(201);
      const id = created.body.data.template.id;
      for (const a of [acc, await t.createAccount()]) {
        const res = await get(id, a.key);
        expect(res.status).toBe(200);
        expect(res.body.data).toMatchObject({ id, isDefault: true, status: 'active' });
        const list = await t.http().get('/api/v2/templates?category=sms&limit=500').set('X-API-Key', a.key);
        expect(list.body.data.templates.map((x: { id: string }) => x.id)).toContain(id);
        await expect(t.app.get(TemplatesService).findForSend(a.id, id)).resolves.toMatchObject({ id, category: 'sms', status: 'active', content: 'Your code is {{1}}', variableCount: 1 });
      }
    });
  });

  describe('status changes', () => {
    it('admin moves a pending template to approved, then rejected with a reason', async () => {
      const created = await post(chatappBody({ name: uniq('to_approve') }));
      const id = created.body.data.template.id;
      await expect(t.app.get(TemplatesService).findForSend(acc.id, id)).resolves.toMatchObject({ status: 'pending' });
      const ok = await t.admin('post', `/admin/v1/templates/${id}/status`).send({ status: 'approved' });
      expect(ok.status).toBe(200);
      expect(ok.body.data.template.status).toBe('approved');
      expect((await get(id)).body.data.status).toBe('approved');
      await expect(t.app.get(TemplatesService).findForSend(acc.id, id)).resolves.toMatchObject({ status: 'approved', variableCount: 2 });
      const rej = await t.admin('post', `/admin/v1/templates/${id}/status`).send({ status: 'rejected', reason: 'INVALID_FORMAT' });
      expect(rej.body.data.template).toMatchObject({ status: 'rejected', rejectionReason: 'INVALID_FORMAT' });
    });

    it('admin status: 400 for an unknown status, 404 for an unknown template, 401 without the token', async () => {
      expect((await t.admin('post', '/admin/v1/templates/tpl_nope/status').send({ status: 'approved' })).status).toBe(404);
      const created = await post(chatappBody({ name: uniq('bad_status') }));
      const bad = await t.admin('post', `/admin/v1/templates/${created.body.data.template.id}/status`).send({ status: 'great' });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toContain('status');
      expect((await t.http().post(`/admin/v1/templates/${created.body.data.template.id}/status`).send({ status: 'approved' })).status).toBe(401);
    });
  });

  describe('listing', () => {
    it('pages with a cursor, newest first, no duplicates, filters combine', async () => {
      const owner = await t.createAccount();
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) {
        const res = await post(smsBody({ name: `page_item_${'abcdefg'[i]}` }), owner.key);
        ids.push(res.body.data.template.id);
      }
      await post(chatappBody({ name: 'page_item_chat' }), owner.key);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const q: string = `/api/v2/templates?category=sms&name=page_item&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const res = await t.http().get(q).set('X-API-Key', owner.key);
        expect(res.status).toBe(200);
        seen.push(...res.body.data.templates.map((x: { id: string }) => x.id));
        expect(res.body.data.hasMore).toBe(res.body.data.nextCursor !== null);
        cursor = res.body.data.nextCursor;
        pages++;
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen).toEqual([...ids].reverse());
      const pending = await t.http().get('/api/v2/templates?status=pending&provider=official').set('X-API-Key', owner.key);
      expect(pending.body.data.templates.map((x: { name: string }) => x.name)).toEqual(['page_item_chat']);
    });

    it('400 for limit above 500, a bad filter or a tampered cursor', async () => {
      for (const q of ['limit=501', 'limit=0', 'status=great', 'cursor=abc.def']) {
        const res = await t.http().get(`/api/v2/templates?${q}`).set('X-API-Key', acc.key);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_ERROR');
      }
    });

    it("another account's cursor is refused", async () => {
      const owner = await t.createAccount();
      for (const n of ['cur_a', 'cur_b']) await post(smsBody({ name: n }), owner.key);
      const first = await t.http().get('/api/v2/templates?limit=1').set('X-API-Key', owner.key);
      const res = await t.http().get(`/api/v2/templates?cursor=${encodeURIComponent(first.body.data.nextCursor)}`).set('X-API-Key', acc.key);
      expect(res.status).toBe(400);
    });
  });

  describe('official senders', () => {
    it('lists the platform number then the account senders; a default sender is used for new templates', async () => {
      const owner = await t.createAccount();
      const before = await t.http().get('/api/v2/chatapp/official-senders').set('X-API-Key', owner.key);
      expect(before.status).toBe(200);
      expect(before.body.data.officialSenders).toEqual([{ id: 'platform', scope: 'platform', isPlatform: true, isDefault: true, label: expect.any(String), phoneNumber: '+966500000001', displayName: expect.any(String) }]);
      const made = await t.admin('post', `/admin/v1/accounts/${owner.id}/official-senders`).send({ displayName: 'Acme', phoneNumber: '+966511111111', isDefault: true });
      expect(made.status).toBe(201);
      const sender = made.body.data.officialSender;
      expect(sender).toMatchObject({ scope: 'account', isPlatform: false, isDefault: true, label: 'Acme (+966511111111)', phoneNumber: '+966511111111', displayName: 'Acme' });
      const after = await t.http().get('/api/v2/chatapp/official-senders').set('X-API-Key', owner.key);
      expect(after.body.data.officialSenders.map((s: { id: string; isDefault: boolean }) => [s.id, s.isDefault])).toEqual([['platform', false], [sender.id, true]]);
      const tpl = await post(chatappBody({ name: 'sender_default' }), owner.key);
      expect(tpl.body.data.template).toMatchObject({ officialSenderId: sender.id, isPlatformNumber: false, officialSender: sender });
      const onPlatform = await post(chatappBody({ name: 'sender_platform', officialSenderId: 'platform' }), owner.key);
      expect(onPlatform.body.data.template).toMatchObject({ officialSenderId: 'platform', isPlatformNumber: true, officialSender: { isPlatform: true, isDefault: false } });
      // Another account cannot use it.
      expect((await post(chatappBody({ name: 'sender_stolen', officialSenderId: sender.id }))).status).toBe(400);
    });
  });
});
