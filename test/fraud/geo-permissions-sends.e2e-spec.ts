import { BULK_TEST_ENV_PATIENT, ds, phone, post, sms, waitStatus } from '../support/bulk-helpers';
import { createTestApp, TestAccount, TestApp } from '../support/app';
import { expectError } from '../support/envelope';

// Geo permissions on every path that sends: refused before anything is paid or stored (default SA).
const US = '+14155550101';
const REFUSED = `to: ${US} is in US; this account may send local_sms to SA only (geo permissions)`;

describe('Geo permissions refuse sends to other countries (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;
  beforeAll(async () => {
    t = await createTestApp({ env: BULK_TEST_ENV_PATIENT });
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(async () => {
    acc = await t.createAccount({ walletBalance: 100_000 });
  });

  const send = (body: Record<string, unknown>) =>
    t.http().post('/api/v2/messages/send').set('X-API-Key', acc.key).send(body);
  const count = async (table: string) =>
    Number((await ds(t).query(`SELECT COUNT(*) AS n FROM ${table} WHERE account_id = ?`, [acc.id]))[0].n);
  const wallet = async () =>
    (await t.http().get('/api/v2/account').set('X-API-Key', acc.key)).body.data.walletBalance as number;

  it('sends to SA; refuses a US number with 400 DESTINATION_NOT_ALLOWED, nothing stored or charged', async () => {
    const ok = await send(sms('+966501234567'));
    expect(ok.status).toBe(201);
    expect(await wallet()).toBe(100_000 - 5);
    const res = await send(sms(US));
    expectError(res, 400, 'DESTINATION_NOT_ALLOWED', REFUSED);
    expect(await wallet()).toBe(100_000 - 5);
    expect(await count('messages')).toBe(1);
    const list = await t.http().get('/api/v2/messages').set('X-API-Key', acc.key);
    expect(list.body.data.messages.map((m: { to: string }) => m.to)).toEqual(['+966501234567']);
  });

  it('chatapp is checked too; email is never restricted', async () => {
    const chat = await send({ to: US, channel: 'chatapp', messageType: 'free_text', content: { text: 'hi' } });
    expectError(
      chat,
      400,
      'DESTINATION_NOT_ALLOWED',
      /^to: \+14155550101 is in US; this account may send chatapp to SA only/,
    );
    const mail = await send({
      to: 'ann@example.com',
      channel: 'email',
      messageType: 'free_text',
      content: { subject: 'Hi', text: 'Hello' },
    });
    expect(mail.status).toBe(201);
  });

  it('a batch with one foreign recipient is refused whole, naming its index (like an invalid recipient)', async () => {
    const res = await send({ ...sms('+966501234567'), to: ['+966501234567', US, '+966501234568'] });
    expectError(res, 400, 'DESTINATION_NOT_ALLOWED', REFUSED.replace(/^to/, 'to[1]'));
    expect(await count('messages')).toBe(0);
    expect(await wallet()).toBe(100_000);
  });

  it('a verification to another country is refused 400; no verification, no message, nothing paid', async () => {
    const res = await t
      .http()
      .post('/api/v2/verification/send')
      .set('X-API-Key', acc.key)
      .send({ to: US, channel: 'local_sms' });
    expectError(res, 400, 'DESTINATION_NOT_ALLOWED', REFUSED);
    expect([await count('verifications'), await count('messages'), await wallet()]).toEqual([0, 0, 100_000]);
    const ok = await t
      .http()
      .post('/api/v2/verification/send')
      .set('X-API-Key', acc.key)
      .send({ to: '+966501234567', channel: 'local_sms' });
    expect(ok.status).toBe(201);
  });

  it('a bulk job with one foreign row is rejected VALIDATION_FAILED; the row names DESTINATION_NOT_ALLOWED', async () => {
    const res = await post(t, acc.key, { messagesPerSecond: 10, messages: [sms(phone()), sms(US), sms(phone())] });
    expect(res.status).toBe(202);
    const job = await waitStatus(t, acc.key, res.body.id, ['rejected']);
    expect(job).toMatchObject({ errorCode: 'VALIDATION_FAILED', errorMessage: expect.stringContaining('messages[1]') });
    const rows = await t
      .http()
      .get(`/api/v2/messages/bulk/${res.body.id}/rows?status=invalid`)
      .set('X-API-Key', acc.key);
    expect(rows.body.data.rows).toEqual([
      expect.objectContaining({
        index: 1,
        status: 'invalid',
        errorCode: 'DESTINATION_NOT_ALLOWED',
        errorMessage: REFUSED,
      }),
    ]);
    expect([await count('messages'), await wallet()]).toEqual([0, 100_000]);
  });

  it('the bulk dry run reports the foreign row', async () => {
    const res = await t
      .http()
      .post('/api/v2/messages/bulk/validate')
      .set('X-API-Key', acc.key)
      .send({ messagesPerSecond: 10, messages: [sms(phone()), sms(US)] });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      total: 2,
      valid: 1,
      invalid: 1,
      errors: [{ index: 1, code: 'DESTINATION_NOT_ALLOWED', error: REFUSED }],
    });
  });

  it('chatapp_web: a direct chat with a foreign number is refused, a group chat is not', async () => {
    const session = await t
      .admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`)
      .send({ name: 'shop', status: 'ready', chats: [] });
    expect(session.status).toBe(201);
    const chat = (chatId: string) =>
      send({
        channel: 'chatapp_web',
        messageType: 'free_text',
        content: { text: 'hi' },
        chatId,
        conversationContext: { moduleType: 'chatapp_web', accountId: 'shop', chatId },
      });
    expectError(
      await chat('14155550101@c.us'),
      400,
      'DESTINATION_NOT_ALLOWED',
      'chatId: 14155550101@c.us is in US; this account may send chatapp_web to SA only (geo permissions)',
    );
    expect((await chat('966511111111@c.us')).status).toBe(201);
    expect((await chat('120363025246125486@g.us')).status).toBe(201);
  });
});
