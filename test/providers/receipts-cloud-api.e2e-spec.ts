import { CloudFake, cloudEnv } from '../providers-fakes/cloud-fake';
import { cloudStatus, cloudStatusWebhook, hubSignature } from '../providers-fakes/cloud-webhook';
import { createTestApp, TestAccount, TestApp, waitFor } from '../support/app';
import { chatappBody } from '../support/templates-helpers';

const APP_SECRET = 'cloud-app-secret-123';
const VERIFY_TOKEN = 'verify-me-456';

// The Cloud API's message status webhook at POST /hooks/chatapp/messages (X-Hub-Signature-256) and its GET subscription check.
describe('Cloud API receipts (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;
  const cloud = new CloudFake();

  beforeAll(async () => {
    await cloud.start();
    t = await createTestApp({
      env: {
        ...cloudEnv(cloud.url),
        PROVIDER_TIMEOUT_MS: '2000',
        CHATAPP_CLOUD_APP_SECRET: APP_SECRET,
        CHATAPP_CLOUD_VERIFY_TOKEN: VERIFY_TOKEN,
      },
    });
    acc = await t.createAccount();
  });
  afterAll(async () => {
    await t?.close();
    await cloud.stop();
  });

  const sendTo = async (to: string): Promise<{ id: string; providerMessageId: string }> => {
    const res = await t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send({ to, channel: 'chatapp', messageType: 'free_text', content: { text: 'Hello' } });
    expect(res.status).toBe(201);
    const m = res.body.data.messages[0];
    expect(m.status).toBe('sent');
    return { id: m.id, providerMessageId: (await message(m.id)).providerMessageId };
  };
  const message = async (id: string) =>
    (await t.http().get(`/api/v2/messages/${id}`).set('X-API-Key', acc.key).expect(200)).body.data;
  const post = (body: unknown, secret = APP_SECRET) => {
    const raw = JSON.stringify(body);
    return t
      .http()
      .post('/hooks/chatapp/messages')
      .set('Content-Type', 'application/json')
      .set('X-Hub-Signature-256', hubSignature(secret, raw))
      .send(raw);
  };

  it('delivered then read moves the message forward; the same receipt twice changes nothing', async () => {
    const m = await sendTo('+966501110001');
    const res = await post(
      cloudStatusWebhook([cloudStatus(m.providerMessageId, 'sent'), cloudStatus(m.providerMessageId, 'delivered')]),
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, receipts: 2, templates: 0 });
    await waitFor(async () => (await message(m.id)).status === 'delivered', { what: 'delivered' });
    expect((await post(cloudStatusWebhook([cloudStatus(m.providerMessageId, 'read')]))).status).toBe(200);
    await waitFor(async () => (await message(m.id)).status === 'read', { what: 'read' });
    expect((await post(cloudStatusWebhook([cloudStatus(m.providerMessageId, 'delivered')]))).status).toBe(200);
    const after = await message(m.id);
    expect(after).toMatchObject({
      status: 'read',
      errorCode: null,
      deliveredAt: expect.any(String),
      readAt: expect.any(String),
    });
    expect(
      after.statusHistory
        .filter((h: { source: string }) => h.source === 'provider')
        .map((h: { status: string; providerStatus: string }) => [h.status, h.providerStatus]),
    ).toEqual([
      ['delivered', 'delivered'],
      ['read', 'read'],
    ]);
  });

  it('failed with errors -> failed UNDELIVERED with the provider code', async () => {
    const m = await sendTo('+966501110002');
    const res = await post(
      cloudStatusWebhook([
        cloudStatus(m.providerMessageId, 'failed', { errors: [{ code: 131026, title: 'Message undeliverable' }] }),
      ]),
    );
    expect(res.status).toBe(200);
    await waitFor(async () => (await message(m.id)).status === 'failed', { what: 'failed' });
    expect(await message(m.id)).toMatchObject({
      status: 'failed',
      errorCode: 'UNDELIVERED',
      providerErrorCode: '131026',
    });
  });

  it('refuses a missing, wrong or re-serialised signature with 401 and applies nothing', async () => {
    const m = await sendTo('+966501110003');
    const body = cloudStatusWebhook([cloudStatus(m.providerMessageId, 'delivered')]);
    const raw = JSON.stringify(body);
    const noSig = await t.http().post('/hooks/chatapp/messages').set('Content-Type', 'application/json').send(raw);
    expect(noSig.status).toBe(401);
    expect(noSig.body).toMatchObject({ success: false, code: 'UNAUTHORIZED', requestId: expect.any(String) });
    expect((await post(body, 'wrong-secret')).status).toBe(401);
    // Signed over other bytes than the ones sent (the signature covers the raw body, not its JSON meaning).
    const other = await t
      .http()
      .post('/hooks/chatapp/messages')
      .set('Content-Type', 'application/json')
      .set('X-Hub-Signature-256', hubSignature(APP_SECRET, raw))
      .send(JSON.stringify(body, null, 1));
    expect(other.status).toBe(401);
    expect((await message(m.id)).status).toBe('sent');
  });

  it('answers the subscription check with the challenge as text/plain; 403 for a wrong token or mode', async () => {
    const ok = await t
      .http()
      .get('/hooks/chatapp/messages')
      .query({ 'hub.mode': 'subscribe', 'hub.verify_token': VERIFY_TOKEN, 'hub.challenge': '1158201444' });
    expect(ok.status).toBe(200);
    expect(ok.headers['content-type']).toMatch(/^text\/plain/);
    expect(ok.text).toBe('1158201444');
    const wrong = await t
      .http()
      .get('/hooks/chatapp/messages')
      .query({ 'hub.mode': 'subscribe', 'hub.verify_token': 'nope', 'hub.challenge': '1' });
    expect(wrong.status).toBe(403);
    expect(wrong.body).toMatchObject({ success: false, code: 'FORBIDDEN' });
    expect(
      (
        await t
          .http()
          .get('/hooks/chatapp/messages')
          .query({ 'hub.mode': 'unsubscribe', 'hub.verify_token': VERIFY_TOKEN, 'hub.challenge': '1' })
      ).status,
    ).toBe(403);
  });

  it('takes template status updates sent to the same callback URL', async () => {
    const created = await t
      .http()
      .post('/api/v2/templates')
      .set('X-API-Key', acc.key)
      .send(chatappBody({ name: 'receipts_hook_target' }));
    expect(created.status).toBe(201);
    const { id, providerTemplateId } = created.body.data.template;
    const body = {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'waba_main',
          changes: [
            {
              field: 'message_template_status_update',
              value: { event: 'APPROVED', message_template_id: Number(providerTemplateId), reason: 'NONE' },
            },
          ],
        },
      ],
    };
    const res = await post(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, receipts: 0, templates: 1 });
    expect((await t.http().get(`/api/v2/templates/${id}`).set('X-API-Key', acc.key)).body.data.status).toBe('approved');
  });
});

describe('Cloud API hook without its settings (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { PUBLIC_THROTTLE_LIMIT: '3', PUBLIC_THROTTLE_TTL_SECONDS: '60' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('refuses everything while CHATAPP_CLOUD_APP_SECRET / CHATAPP_CLOUD_VERIFY_TOKEN are unset, throttled per client IP', async () => {
    const raw = JSON.stringify(cloudStatusWebhook([]));
    expect(
      (
        await t
          .http()
          .post('/hooks/chatapp/messages')
          .set('Content-Type', 'application/json')
          .set('X-Hub-Signature-256', hubSignature('', raw))
          .send(raw)
      ).status,
    ).toBe(401);
    expect(
      (
        await t
          .http()
          .get('/hooks/chatapp/messages')
          .query({ 'hub.mode': 'subscribe', 'hub.verify_token': '', 'hub.challenge': '1' })
      ).status,
    ).toBe(403);
    // Throttled per client IP like the other hooks: a budget of 3 calls.
    expect((await t.http().get('/hooks/chatapp/messages').query({ 'hub.mode': 'subscribe' })).status).toBe(403);
    const limited = await t.http().post('/hooks/chatapp/messages').set('Content-Type', 'application/json').send('{}');
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ success: false, code: 'RATE_LIMITED' });
  });
});
