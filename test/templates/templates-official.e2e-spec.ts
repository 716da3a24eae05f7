import { CloudFake, cloudEnv, Mode } from '../providers-fakes/cloud-fake';
import { closedPort } from '../providers-fakes/http-fake';
import { createTestApp, TestAccount, TestApp, waitFor } from '../support/app';
import { chatappBody } from '../support/templates-helpers';

describe('Templates: official submission over the cloud API (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;
  const fake = new CloudFake();

  beforeAll(async () => {
    await fake.start();
    t = await createTestApp({ env: cloudEnv(fake.url) });
    acc = await t.createAccount();
  });
  afterAll(async () => {
    await t.close();
    await fake.stop();
  });
  beforeEach(() => {
    fake.mode = 'ok';
    fake.requests = [];
  });

  const post = (body: unknown) =>
    t
      .http()
      .post('/api/v2/templates')
      .set('X-API-Key', acc.key)
      .send(body as object);
  const names = async (name: string) =>
    (await t.http().get(`/api/v2/templates?name=${name}`).set('X-API-Key', acc.key)).body.data.templates.map(
      (x: { name: string }) => x.name,
    );

  it('submits to POST /{version}/{waba}/message_templates with the bearer token; template starts pending', async () => {
    const res = await post(
      chatappBody({
        name: 'cloud_order',
        headerType: 'text',
        headerValue: 'Your order',
        footer: 'Reply STOP to opt out',
        buttons: [
          {
            type: 'url',
            text: 'Track',
            url: 'https://shop.example/t/{{1}}',
            urlExample: 'https://shop.example/t/AB12',
          },
          { type: 'phone', text: 'Call', url: '+966500000002' },
        ],
      }),
    );
    expect(res.status).toBe(201);
    expect(res.body.data.template).toMatchObject({
      status: 'pending',
      providerTemplateId: '9001',
      provider: 'official',
      officialSenderId: 'platform',
    });
    expect(fake.requests).toHaveLength(1);
    const call = fake.requests[0];
    expect(call).toMatchObject({
      method: 'POST',
      path: '/v21.0/waba_main/message_templates',
      auth: 'Bearer cloud-token-123',
    });
    expect(call.body).toEqual({
      name: 'cloud_order',
      language: 'en',
      category: 'UTILITY',
      components: [
        { type: 'HEADER', format: 'TEXT', text: 'Your order' },
        { type: 'BODY', text: 'Hi {{1}}, your order {{2}} has shipped', example: { body_text: [['Sara', 'A-100']] } },
        { type: 'FOOTER', text: 'Reply STOP to opt out' },
        {
          type: 'BUTTONS',
          buttons: [
            {
              type: 'URL',
              text: 'Track',
              url: 'https://shop.example/t/{{1}}',
              example: ['https://shop.example/t/AB12'],
            },
            { type: 'PHONE_NUMBER', text: 'Call', phone_number: '+966500000002' },
          ],
        },
      ],
    });
  });

  it('header media go up through a resumable upload session; the handle is the header example', async () => {
    fake.uploads = [];
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\n%%EOF\n');
    const res = await t
      .http()
      .post('/api/v2/templates')
      .set('X-API-Key', acc.key)
      .field('payload', JSON.stringify(chatappBody({ name: 'cloud_media' })))
      .attach('file', pdf, { filename: 'invoice.pdf', contentType: 'application/pdf' });
    expect(res.status).toBe(201);
    expect(fake.uploads).toEqual([
      {
        app: 'app_main',
        openAuth: 'Bearer cloud-token-123',
        fileLength: pdf.length,
        fileType: 'application/pdf',
        session: expect.stringMatching(/^upload:.+\?sig=/),
        bytes: pdf,
        auth: 'OAuth cloud-token-123',
        fileOffset: '0',
        handle: expect.stringMatching(/^4::/),
      },
    ]);
    const submit = fake.requests.find((r) => r.path.endsWith('/message_templates'));
    expect((submit?.body.components as Record<string, unknown>[])[0]).toEqual({
      type: 'HEADER',
      format: 'DOCUMENT',
      example: { header_handle: [fake.uploads[0].handle] },
    });
  });

  it('an upload the provider refuses: 503 PROVIDER_UNAVAILABLE, no template submitted or stored', async () => {
    fake.uploads = [];
    fake.failUploadWith = 503;
    try {
      const res = await t
        .http()
        .post('/api/v2/templates')
        .set('X-API-Key', acc.key)
        .field('payload', JSON.stringify(chatappBody({ name: 'cloud_media_down' })))
        .attach('file', Buffer.from('%PDF-1.4\n%%EOF\n'), { filename: 'x.pdf', contentType: 'application/pdf' });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ success: false, code: 'PROVIDER_UNAVAILABLE' });
    } finally {
      fake.failUploadWith = null;
    }
    expect(fake.requests.filter((r) => r.path.endsWith('/message_templates'))).toHaveLength(0);
    expect(await names('cloud_media_down')).toEqual([]);
  });

  it('OTP templates go as AUTHENTICATION with the OTP button', async () => {
    const res = await post({
      name: 'cloud_otp',
      category: 'chatapp',
      subType: 'otp',
      language: 'ar',
      body: 'Code {{1}}',
      bodyParameters: [{ index: 1, label: '123456' }],
      otpType: 'one_tap',
      packageName: 'com.example.app',
      signatureHash: 'K8a/AINcGX7',
      codeExpirationMinutes: 10,
      addSecurityRecommendation: true,
      otpButtonText: 'Copy code',
    });
    expect(res.status).toBe(201);
    expect(fake.requests[0].body).toMatchObject({
      name: 'cloud_otp',
      language: 'ar',
      category: 'AUTHENTICATION',
      components: [
        { type: 'BODY', add_security_recommendation: true },
        { type: 'FOOTER', code_expiration_minutes: 10 },
        {
          type: 'BUTTONS',
          buttons: [
            {
              type: 'OTP',
              otp_type: 'ONE_TAP',
              text: 'Copy code',
              supported_apps: [{ package_name: 'com.example.app', signature_hash: 'K8a/AINcGX7' }],
            },
          ],
        },
      ],
    });
  });

  it('an account sender with its own business account id files the template there', async () => {
    const owner = await t.createAccount();
    const s = await t
      .admin('post', `/admin/v1/accounts/${owner.id}/official-senders`)
      .send({ displayName: 'Own', phoneNumber: '+966522222222', wabaId: 'waba_own' });
    const res = await t
      .http()
      .post('/api/v2/templates')
      .set('X-API-Key', owner.key)
      .send(chatappBody({ name: 'own_waba', officialSenderId: s.body.data.officialSender.id }));
    expect(res.status).toBe(201);
    expect(fake.requests[0].path).toBe('/v21.0/waba_own/message_templates');
  });

  it.each<[Mode, string]>([
    ['error500', 'HTTP 500'],
    ['slow', 'timeout'],
    ['reset', 'connection reset'],
  ])('503 PROVIDER_UNAVAILABLE and nothing stored when the provider answers %s (%s)', async (mode) => {
    fake.mode = mode;
    const name = `down_${mode.replace(/\d+/g, '')}`;
    const res = await post(chatappBody({ name }));
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ success: false, code: 'PROVIDER_UNAVAILABLE' });
    expect(await names(name)).toEqual([]);
    fake.mode = 'ok';
    expect((await post(chatappBody({ name }))).status).toBe(201);
  });

  it('a template the provider refuses is 400 with its message; a provider duplicate is 409', async () => {
    fake.mode = 'refuse';
    const refused = await post(chatappBody({ name: 'refused_one' }));
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(refused.body.error).toContain('Body has too many variables');
    fake.mode = 'duplicate';
    const dup = await post(chatappBody({ name: 'dup_at_provider' }));
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('TEMPLATE_EXISTS');
    expect(await names('refused_one')).toEqual([]);
  });

  it("a manual link is looked up at the provider in the sender's business account before it is usable", async () => {
    const sender = await t
      .admin('post', `/admin/v1/accounts/${acc.id}/official-senders`)
      .send({ displayName: 'Acme', phoneNumberId: 'pn_acme', wabaId: 'waba_acme' });
    expect(sender.status).toBe(201);
    const officialSenderId = sender.body.data.officialSender.id as string;
    fake.known['777'] = {
      waba: 'waba_acme',
      name: 'cloud_manual',
      language: 'ar',
      status: 'APPROVED',
      body: 'Hi {{1}}',
    };
    fake.known['888'] = { waba: 'waba_other', name: 'other_tenant', language: 'en', status: 'APPROVED', body: 'Hi' };
    const link = (fields: Record<string, unknown>) =>
      post({
        category: 'chatapp',
        subType: 'utility',
        creationMode: 'manual_external_id',
        officialSenderId,
        manualVariableCount: 1,
        ...fields,
      });

    const manual = await link({ name: 'cloud_manual', providerTemplateId: '777' });
    expect(manual.status).toBe(201);
    expect(manual.body.data.template).toMatchObject({
      status: 'approved',
      manualProvider: 'cloud_api',
      providerTemplateId: '777',
      language: 'ar',
      officialSenderId,
    });
    const paths = fake.requests.filter((r) => r.method === 'GET').map((r) => r.path);
    expect(paths).toEqual([
      '/v21.0/777?fields=id,name,language,status,components',
      '/v21.0/waba_acme/message_templates?fields=id&limit=100&name=cloud_manual',
    ]);
    expect(fake.requests.every((r) => r.auth === 'Bearer cloud-token-123')).toBe(true);

    // Another business account's template and an unknown id read the same; nothing is stored.
    for (const [name, providerTemplateId] of [
      ['other_tenant', '888'],
      ['nowhere', '999'],
    ]) {
      const refused = await link({ name, providerTemplateId, manualVariableCount: 0 });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({
        success: false,
        code: 'VALIDATION_ERROR',
        error: "providerTemplateId is not a template of this sender's business account at the provider",
      });
      expect(await names(name)).toEqual([]);
    }
    fake.known['778'] = {
      waba: 'waba_acme',
      name: 'cloud_manual_b',
      language: 'en',
      status: 'APPROVED',
      body: 'Hi {{1}} {{2}}',
    };
    const wrongCount = await link({ name: 'cloud_manual_b', providerTemplateId: '778' });
    expect(wrongCount.status).toBe(400);
    expect(wrongCount.body.error).toContain('manualVariableCount');
  });

  it('the provider being down during a link lookup is 503 with nothing stored', async () => {
    fake.known['556'] = { waba: 'waba_acme', name: 'down_link', language: 'en', status: 'APPROVED', body: 'Hi' };
    const senders = await t.http().get('/api/v2/chatapp/official-senders').set('X-API-Key', acc.key);
    const officialSenderId = (senders.body.data.officialSenders as { id: string; isPlatform: boolean }[]).find(
      (x) => !x.isPlatform,
    )!.id;
    fake.mode = 'error500';
    const res = await post({
      name: 'down_link',
      category: 'chatapp',
      subType: 'utility',
      creationMode: 'manual_external_id',
      officialSenderId,
      providerTemplateId: '556',
      manualVariableCount: 0,
    });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ success: false, code: 'PROVIDER_UNAVAILABLE' });
    expect(await names('down_link')).toEqual([]);
  });

  it('SMS and web-session templates never call the provider', async () => {
    expect((await post({ name: 'cloud_sms', category: 'sms', subType: 'utility', content: 'hi' })).status).toBe(201);
    expect((await post(chatappBody({ name: 'cloud_session', templateTarget: 'user_session' }))).status).toBe(201);
    expect(fake.requests).toEqual([]);
  });

  describe('status callback', () => {
    const event = (id: string, ev: string, reason: string | null = null) => ({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'waba_main',
          time: 1,
          changes: [
            {
              field: 'message_template_status_update',
              value: {
                event: ev,
                message_template_id: Number(id),
                message_template_name: 'x',
                message_template_language: 'en',
                reason,
              },
            },
          ],
        },
      ],
    });

    it('approves and rejects through the provider callback (secret as ?token or bearer)', async () => {
      const created = await post(chatappBody({ name: 'hook_target' }));
      const { id, providerTemplateId } = created.body.data.template;
      const ok = await t
        .http()
        .post('/hooks/chatapp/template-status?token=hook-secret-123')
        .send(event(providerTemplateId, 'APPROVED'));
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ ok: true, updated: 1 });
      expect((await t.http().get(`/api/v2/templates/${id}`).set('X-API-Key', acc.key)).body.data.status).toBe(
        'approved',
      );
      const rej = await t
        .http()
        .post('/hooks/chatapp/template-status')
        .set('Authorization', 'Bearer hook-secret-123')
        .send(event(providerTemplateId, 'REJECTED', 'INVALID_FORMAT'));
      expect(rej.body.updated).toBe(1);
      expect((await t.http().get(`/api/v2/templates/${id}`).set('X-API-Key', acc.key)).body.data).toMatchObject({
        status: 'rejected',
        rejectionReason: 'INVALID_FORMAT',
      });
    });

    it('PAUSED makes the template unusable (rejected) as the poll does; REINSTATED approves it again; a long reason is cut', async () => {
      const created = await post(chatappBody({ name: 'hook_paused' }));
      const { id, providerTemplateId } = created.body.data.template;
      const hook = (ev: string, reason: string | null = null) =>
        t
          .http()
          .post('/hooks/chatapp/template-status?token=hook-secret-123')
          .send(event(providerTemplateId, ev, reason));
      const read = async () => (await t.http().get(`/api/v2/templates/${id}`).set('X-API-Key', acc.key)).body.data;
      expect((await hook('APPROVED')).body.updated).toBe(1);
      expect((await hook('PAUSED', 'NONE')).body.updated).toBe(1);
      expect(await read()).toMatchObject({ status: 'rejected', rejectionReason: null });
      expect((await hook('REINSTATED')).body.updated).toBe(1);
      expect((await read()).status).toBe('approved');
      await hook('REJECTED', 'y'.repeat(900));
      expect(await read()).toMatchObject({ status: 'rejected', rejectionReason: 'y'.repeat(500) });
    });

    it('401 without or with a wrong secret, and nothing changes', async () => {
      const created = await post(chatappBody({ name: 'hook_guarded' }));
      const { id, providerTemplateId } = created.body.data.template;
      expect(
        (await t.http().post('/hooks/chatapp/template-status').send(event(providerTemplateId, 'APPROVED'))).status,
      ).toBe(401);
      expect(
        (await t.http().post('/hooks/chatapp/template-status?token=nope').send(event(providerTemplateId, 'APPROVED')))
          .status,
      ).toBe(401);
      expect((await t.http().get(`/api/v2/templates/${id}`).set('X-API-Key', acc.key)).body.data.status).toBe(
        'pending',
      );
    });

    it('subscription check echoes hub.challenge for the right verify token only', async () => {
      const ok = await t
        .http()
        .get('/hooks/chatapp/template-status?hub.mode=subscribe&hub.verify_token=hook-secret-123&hub.challenge=12345');
      expect(ok.status).toBe(200);
      expect(ok.text).toBe('12345');
      expect(
        (await t.http().get('/hooks/chatapp/template-status?hub.mode=subscribe&hub.verify_token=bad&hub.challenge=1'))
          .status,
      ).toBe(401);
    });
  });
});

describe('Templates: official provider down (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: cloudEnv(`http://127.0.0.1:${await closedPort()}`) });
  });
  afterAll(async () => {
    await t.close();
  });

  it('503 PROVIDER_UNAVAILABLE and nothing stored (no template, no header media)', async () => {
    const acc = await t.createAccount();
    const res = await t
      .http()
      .post('/api/v2/templates')
      .set('X-API-Key', acc.key)
      .field('payload', JSON.stringify(chatappBody({ name: 'provider_down' })))
      .attach('file', Buffer.from('%PDF-1.4\n%%EOF\n'), { filename: 'x.pdf', contentType: 'application/pdf' });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ success: false, code: 'PROVIDER_UNAVAILABLE' });
    const list = await t.http().get('/api/v2/templates').set('X-API-Key', acc.key);
    expect(list.body.data.templates).toEqual([]);
    const { DataSource } = await import('typeorm');
    const rows = await t.app.get(DataSource).query('SELECT COUNT(*) AS n FROM template_media');
    expect(Number(rows[0].n)).toBe(0);
  });
});

describe('Templates: scheduled status poll (e2e)', () => {
  let t: TestApp;
  const fake = new CloudFake();

  beforeAll(async () => {
    await fake.start();
    t = await createTestApp({ env: { ...cloudEnv(fake.url), TEMPLATE_STATUS_POLL_MS: '100' } });
  });
  afterAll(async () => {
    await t.close();
    await fake.stop();
  });

  it('pending templates move to approved / rejected as the provider reports; manual links are not polled', async () => {
    const acc = await t.createAccount();
    const post = (body: Record<string, unknown>) =>
      t.http().post('/api/v2/templates').set('X-API-Key', acc.key).send(body);
    const a = (await post(chatappBody({ name: 'poll_approve' }))).body.data.template;
    const r = (await post(chatappBody({ name: 'poll_reject' }))).body.data.template;
    const s = (await post(chatappBody({ name: 'poll_stays' }))).body.data.template;
    const sender = await t
      .admin('post', `/admin/v1/accounts/${acc.id}/official-senders`)
      .send({ displayName: 'Acme', wabaId: 'waba_acme' });
    fake.known.manual_1 = { waba: 'waba_acme', name: 'poll_manual', language: 'en', status: 'APPROVED', body: 'Hi' };
    const linked = await post({
      name: 'poll_manual',
      category: 'chatapp',
      subType: 'utility',
      creationMode: 'manual_external_id',
      officialSenderId: sender.body.data.officialSender.id,
      providerTemplateId: 'manual_1',
      manualVariableCount: 0,
    });
    expect(linked.status).toBe(201);
    const linkLookups = fake.requests.length;
    fake.statuses[a.providerTemplateId] = { status: 'APPROVED' };
    // Provider text is unbounded: stored cut to the 500-character column, as on the callback path.
    const longReason = `PROMOTIONAL ${'x'.repeat(800)}`;
    fake.statuses[r.providerTemplateId] = { status: 'REJECTED', rejected_reason: longReason };
    const read = async (id: string) =>
      (await t.http().get(`/api/v2/templates/${id}`).set('X-API-Key', acc.key)).body.data;
    await waitFor(async () => (await read(a.id)).status === 'approved', { what: 'approved by poll' });
    await waitFor(async () => (await read(r.id)).status === 'rejected', { what: 'rejected by poll' });
    expect(await read(r.id)).toMatchObject({ rejectionReason: longReason.slice(0, 500) });
    expect((await read(s.id)).status).toBe('pending');
    const polled = fake.requests
      .slice(linkLookups)
      .filter((x) => x.method === 'GET')
      .map((x) => x.path.split('?')[0]);
    expect(polled).toContain(`/v21.0/${s.providerTemplateId}`);
    expect(polled).not.toContain('/v21.0/manual_1');
  });
});
