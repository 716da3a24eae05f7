import { createTestApp, TestApp } from '../support/app';

describe('SMS senders with WEBHOOK_ALLOW_INSECURE=false (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: { WEBHOOK_ALLOW_INSECURE: 'false' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it.each([
    'http://example.com/hook',
    'https://127.0.0.1/hook',
    'https://localhost/hook',
    'https://10.1.2.3/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/hook',
    'https://user:pass@93.184.215.14/hook',
  ])('refuses webhookUrl %s with 400 VALIDATION_ERROR', async (webhookUrl) => {
    const acc = await t.createAccount();
    const res = await t
      .http()
      .post('/api/v2/sms-senders')
      .set('X-API-Key', acc.key)
      .send({ name: 'Secure', webhookUrl, webhookSecret: 'abc' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect(res.body.error).toContain('webhookUrl');
  });

  it('accepts https to a public address', async () => {
    const acc = await t.createAccount();
    const res = await t
      .http()
      .post('/api/v2/sms-senders')
      .set('X-API-Key', acc.key)
      .send({ name: 'Secure', webhookUrl: 'https://93.184.215.14/hook', webhookSecret: 'abc' });
    expect(res.status).toBe(201);
    expect(res.body.data.smsSender.webhookConfigured).toBe(true);
  });
});
