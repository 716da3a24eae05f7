import { TemplatesService } from '../../src/templates/templates.service';
import { TestAccount, TestApp } from '../support/app';
import { chatappBody, smsBody, startTemplatesApp, templateRequests } from '../support/templates-helpers';
import { accountIdOf } from '../../src/common/account-id';

describe('Templates: create, read, list (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;

  beforeAll(async () => {
    ({ t, acc } = await startTemplatesApp());
  });
  afterAll(async () => {
    await t.close();
  });

  const { post, get, uniq, expect400 } = templateRequests(
    () => t,
    () => acc,
  );

  describe('each category', () => {
    it('chatapp (official): 201 pending, submitted via the platform sender, every Template field', async () => {
      const res = await post(
        chatappBody({ name: uniq('order_update'), footer: 'Thanks', headerType: 'text', headerValue: 'Order news' }),
      );
      expect(res.status).toBe(201);
      expect(res.body.success).toBe(true);
      expect(res.body.message).toEqual(expect.any(String));
      const tpl = res.body.data.template;
      expect(tpl).toMatchObject({
        category: 'chatapp',
        subType: 'utility',
        status: 'pending',
        language: 'en',
        provider: 'official',
        body: 'Hi {{1}}, your order {{2}} has shipped',
        headerType: 'text',
        headerValue: 'Order news',
        footer: 'Thanks',
        bodyParameters: [
          { index: 1, label: 'Sara' },
          { index: 2, label: 'A-100' },
        ],
        parameters: ['Sara', 'A-100'],
        indexedPlaceholders: ['{{1}}', '{{2}}'],
        officialSenderId: 'platform',
        isPlatformNumber: true,
        isDefault: false,
        allowsHeaderMediaOverride: false,
        headerAssetId: null,
        headerPreviewUrl: null,
        buttons: [],
        urlButtonVariables: [],
        content: null,
        manualProvider: null,
        officialSender: {
          id: 'platform',
          scope: 'platform',
          isPlatform: true,
          isDefault: true,
          phoneNumber: '+966500000001',
          label: expect.stringContaining('+966500000001'),
          displayName: expect.any(String),
        },
      });
      expect(tpl.id).toMatch(/^tpl_/);
      expect(tpl.providerTemplateId).toEqual(expect.any(String));
      expect(new Date(tpl.createdAt).toISOString()).toBe(tpl.createdAt);
      const read = await get(tpl.id);
      expect(read.status).toBe(200);
      expect(read.body).toEqual({ success: true, data: tpl });
    });

    it('sms: 201 with only id, name, category, status (active) and livemode', async () => {
      const name = uniq('login_code');
      const res = await post(smsBody({ name }));
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        success: true,
        data: {
          template: { id: expect.stringMatching(/^tpl_/), name, category: 'sms', status: 'active', livemode: true },
        },
      });
      const full = await get(res.body.data.template.id);
      expect(full.body.data).toMatchObject({
        content: 'Your code is {{1}}',
        provider: 'internal',
        officialSender: null,
        isPlatformNumber: false,
        indexedPlaceholders: ['{{1}}'],
      });
    });

    it('message: 201 active, internal', async () => {
      const res = await post({
        name: uniq('welcome'),
        category: 'message',
        subType: 'free',
        content: 'Welcome aboard',
      });
      expect(res.status).toBe(201);
      expect(res.body.data.template).toMatchObject({
        category: 'message',
        status: 'active',
        provider: 'internal',
        content: 'Welcome aboard',
        language: null,
      });
    });

    it('email: 201 active with emailSubject', async () => {
      const res = await post({
        name: uniq('newsletter'),
        category: 'email',
        subType: 'marketing',
        content: '<p>Hello {{1}}</p>',
        emailSubject: 'News',
      });
      expect(res.status).toBe(201);
      expect(res.body.data.template).toMatchObject({
        category: 'email',
        status: 'active',
        emailSubject: 'News',
        content: '<p>Hello {{1}}</p>',
      });
    });

    it('user_session via templateTarget: web-session template, active, no official sender', async () => {
      const res = await post(
        chatappBody({ name: uniq('session_note'), templateTarget: 'user_session', bodyParameters: undefined }),
      );
      expect(res.status).toBe(201);
      expect(res.body.data.template).toMatchObject({
        provider: 'user_session',
        status: 'active',
        officialSender: null,
        officialSenderId: null,
        footer: null,
      });
    });

    it('user_session via provider, URL and phone buttons stored', async () => {
      const res = await post(
        chatappBody({
          name: uniq('session_btn'),
          provider: 'user_session',
          buttons: [
            {
              type: 'url',
              text: 'Track',
              url: 'https://shop.example/track/{{1}}',
              urlExample: 'https://shop.example/track/ABC',
            },
            { type: 'phone', text: 'Call us', url: '+966500000002' },
          ],
        }),
      );
      expect(res.status).toBe(201);
      expect(res.body.data.template).toMatchObject({ provider: 'user_session', urlButtonVariables: ['ABC'] });
      expect(res.body.data.template.buttons).toHaveLength(2);
    });

    it("manual link: approved once the sandbox provider knows it in the sender's business account; records providerTemplateId and manualProvider", async () => {
      const sender = await t
        .admin('post', `/admin/v1/accounts/${acc.id}/official-senders`)
        .send({ displayName: 'Acme', wabaId: 'waba_linked' });
      const name = uniq('linked');
      const registered = await t
        .admin('post', '/admin/v1/sandbox/official-templates')
        .send({ wabaId: 'waba_linked', name, language: 'en', variableCount: 2 });
      expect(registered.status).toBe(201);
      const providerTemplateId = registered.body.data.providerTemplateId as string;
      const res = await post({
        name,
        category: 'chatapp',
        subType: 'utility',
        creationMode: 'manual_external_id',
        officialSenderId: sender.body.data.officialSender.id,
        providerTemplateId,
        manualVariableCount: 2,
      });
      expect(res.status).toBe(201);
      expect(res.body.data.template).toMatchObject({
        status: 'approved',
        providerTemplateId,
        manualProvider: 'sandbox',
        creationMode: 'manual_external_id',
        indexedPlaceholders: ['{{1}}', '{{2}}'],
      });
      const forSend = await t.app.get(TemplatesService).findForSend(accountIdOf(acc.id), res.body.data.template.id);
      expect(forSend).toMatchObject({ variableCount: 2, providerTemplateId, status: 'approved', provider: 'official' });
    });

    it('OTP chatapp template with copy_code options', async () => {
      const res = await post({
        name: uniq('otp_code'),
        category: 'chatapp',
        subType: 'otp',
        body: 'Code {{1}}',
        bodyParameters: [{ index: 1, label: '123456' }],
        otpType: 'copy_code',
        codeExpirationMinutes: 90,
        addSecurityRecommendation: true,
        otpButtonText: 'Copy',
      });
      expect(res.status).toBe(201);
      expect(res.body.data.template.otp).toMatchObject({
        otpType: 'copy_code',
        codeExpirationMinutes: 90,
        addSecurityRecommendation: true,
      });
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
    it('emailSubject required for email', () =>
      expect400({ category: 'email', subType: 'utility', content: '<p>x</p>' }, 'emailSubject'));
    it('codeExpirationMinutes below 1', () =>
      expect400(
        chatappBody({ subType: 'otp', otpType: 'copy_code', codeExpirationMinutes: 0 }),
        'codeExpirationMinutes',
      ));
    it('codeExpirationMinutes above 90', () =>
      expect400(
        chatappBody({ subType: 'otp', otpType: 'copy_code', codeExpirationMinutes: 91 }),
        'codeExpirationMinutes',
      ));
    it('zeroTapTermsAccepted must be true for zero_tap', () =>
      expect400(
        chatappBody({
          subType: 'otp',
          otpType: 'zero_tap',
          packageName: 'com.example.app',
          signatureHash: 'K8a/AINcGX7',
          zeroTapTermsAccepted: false,
        }),
        'zeroTapTermsAccepted',
      ));
    it('one_tap needs packageName and signatureHash', () =>
      expect400(chatappBody({ subType: 'otp', otpType: 'one_tap', packageName: 'com.example.app' }), 'signatureHash'));
    it('zero_tap needs packageName and signatureHash', () =>
      expect400(chatappBody({ subType: 'otp', otpType: 'zero_tap', zeroTapTermsAccepted: true }), 'packageName'));
    it('manual_external_id needs providerTemplateId', () =>
      expect400(
        { category: 'chatapp', subType: 'utility', creationMode: 'manual_external_id', manualVariableCount: 1 },
        'providerTemplateId',
      ));
    it('manual_external_id needs manualVariableCount', () =>
      expect400(
        { category: 'chatapp', subType: 'utility', creationMode: 'manual_external_id', providerTemplateId: '1' },
        'manualVariableCount',
      ));
    it('body placeholders with a gap', () =>
      expect400(
        chatappBody({
          body: 'Hi {{1}} and {{3}}',
          bodyParameters: [
            { index: 1, label: 'a' },
            { index: 3, label: 'c' },
          ],
        }),
        '{{2}} is missing',
      ));
    it('body placeholders not numbered', () =>
      expect400(chatappBody({ body: 'Hi {{name}}', bodyParameters: undefined }), 'body placeholders'));
    it('bodyParameters indexes must match the placeholders', () =>
      expect400(chatappBody({ bodyParameters: [{ index: 1, label: 'a' }] }), 'bodyParameters'));
    it('bodyParameters required for an official body with placeholders', () =>
      expect400(chatappBody({ bodyParameters: undefined }), 'bodyParameters'));
    it('URL button must carry {{1}} in the URL', () =>
      expect400(
        chatappBody({ buttons: [{ type: 'url', text: 'Open', url: 'https://shop.example/track' }] }),
        'buttons[0].url',
      ));
    it('phone button must be a dialable number', () =>
      expect400(chatappBody({ buttons: [{ type: 'phone', text: 'Call', url: 'call-me-maybe' }] }), 'buttons[0].url'));
    // An array element slipped past ValidateNested and reached the rules as a button: it was a 500.
    it('buttons must hold objects, not arrays', () =>
      expect400(chatappBody({ buttons: [[]] }), 'buttons must be a list of objects'));
    it('bodyParameters must hold objects, not arrays', () =>
      expect400(chatappBody({ bodyParameters: [[]] }), 'bodyParameters must be a list of objects'));
    it('headerValue only with headerType text', () =>
      expect400(chatappBody({ headerType: 'image', headerValue: 'Hello', headerAssetId: 'hma_x' }), 'headerValue'));
    it('headerValue required when headerType is text', () =>
      expect400(chatappBody({ headerType: 'text' }), 'headerValue'));
    it('media headerType needs a header file', () =>
      expect400(chatappBody({ headerType: 'image' }), 'headerType image'));
    it('footer not allowed on user_session templates', () =>
      expect400(chatappBody({ templateTarget: 'user_session', footer: 'Bye' }), 'footer'));
    it('body required for chatapp', () => expect400({ category: 'chatapp', subType: 'utility' }, 'body'));
    it('content required for sms', () => expect400({ category: 'sms', subType: 'utility' }, 'content'));
    it('language must be a language code', () => expect400(chatappBody({ language: 'English' }), 'language'));
    it('officialSenderId must be a sender of the account', () =>
      expect400(chatappBody({ officialSenderId: 'osn_someone_else' }), 'officialSenderId'));
    it('OTP fields only with subType otp', () => expect400(chatappBody({ otpType: 'copy_code' }), 'subType otp'));
    it('headerValue cannot carry placeholders', () =>
      expect400(chatappBody({ headerType: 'text', headerValue: 'Hi {{1}}' }), 'headerValue'));
    it('footer cannot carry placeholders', () => expect400(chatappBody({ footer: 'Bye {{1}}' }), 'footer'));
    it('providerTemplateId only with manual_external_id', () =>
      expect400(chatappBody({ providerTemplateId: '123' }), 'providerTemplateId'));
    it('emailSubject only for email', () => expect400(smsBody({ emailSubject: 'Hi' }), 'emailSubject'));
    it('buttons only on chatapp templates', () =>
      expect400(smsBody({ buttons: [{ type: 'phone', text: 'Call', url: '+966500000002' }] }), 'buttons'));
    it('manualVariableCount must agree with a given body', () =>
      expect400(
        {
          category: 'chatapp',
          subType: 'utility',
          creationMode: 'manual_external_id',
          providerTemplateId: '1',
          manualVariableCount: 2,
          body: 'Hi {{1}}',
        },
        'manualVariableCount',
      ));
    it('chatapp provider cannot be internal', () => expect400(chatappBody({ provider: 'internal' }), 'provider'));
    it('nothing is stored by a rejected request', async () => {
      await post(chatappBody({ name: 'never_stored', language: 'English' }));
      const list = await t.http().get('/api/v2/templates?name=never_stored').set('X-API-Key', acc.key);
      expect(list.body.data.templates).toEqual([]);
    });
  });
});
