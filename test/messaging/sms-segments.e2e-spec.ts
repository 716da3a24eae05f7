import { BULK_TEST_ENV_PATIENT, phone, post, sms as bulkSms, waitStatus } from '../support/bulk-helpers';
import { createTestApp, TestApp } from '../support/app';

const PRICE = 5; // PRICE_LOCAL_SMS, per part
const REJECTING = '+966500000000'; // the sandbox refuses it (failed, refunded)
const sms = (text: string, to: unknown = phone()) => ({
  to,
  channel: 'local_sms',
  messageType: 'free_text',
  content: { text },
});

const TWO_PARTS = 'a'.repeat(161);

/** SMS parts: encoding and segments on every view, each part one billable unit. */
describe('SMS segments and per-part billing (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: { ...BULK_TEST_ENV_PATIENT, THROTTLE_LIMIT: '100000' } });
  });
  afterAll(async () => {
    await t.close();
  });

  const account = async (key: string) => (await t.http().get('/api/v2/account').set('X-API-Key', key)).body.data;
  const send = (key: string, body: object) => t.http().post('/api/v2/messages/send').set('X-API-Key', key).send(body);
  const message = async (key: string, id: string) =>
    (await t.http().get(`/api/v2/messages/${id}`).set('X-API-Key', key)).body.data;

  it.each([
    ['160 GSM-7 characters', 'a'.repeat(160), 'gsm7', 1],
    ['161 GSM-7 characters', 'a'.repeat(161), 'gsm7', 2],
    ['extension characters count two (81 euro signs)', '€'.repeat(81), 'gsm7', 2],
    ['70 Arabic letters', 'م'.repeat(70), 'ucs2', 1],
    ['71 Arabic letters', 'م'.repeat(71), 'ucs2', 2],
    ['36 emoji (72 UTF-16 code units)', '😀'.repeat(36), 'ucs2', 2],
    ['135 Arabic letters', 'م'.repeat(135), 'ucs2', 3],
  ])('%s: send response, message resource and the wallet agree', async (_name, text, encoding, segments) => {
    const acc = await t.createAccount({ walletBalance: 100 });
    const res = await send(acc.key, sms(text));
    expect(res.status).toBe(201);
    const sent = res.body.data.messages[0];
    expect(sent).toMatchObject({ status: 'sent', cost: PRICE * segments, encoding, segments });
    expect(await message(acc.key, sent.id)).toMatchObject({
      cost: PRICE * segments,
      paidFrom: 'wallet',
      encoding,
      segments,
    });
    expect((await account(acc.key)).walletBalance).toBe(100 - PRICE * segments);
  });

  it('other channels have no encoding or segments and cost one unit', async () => {
    const acc = await t.createAccount({ walletBalance: 100 });
    const res = await send(acc.key, {
      to: 'a@example.org',
      channel: 'email',
      messageType: 'free_text',
      content: { text: 'x'.repeat(500), subject: 'Hi' },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.messages[0]).toMatchObject({ encoding: null, segments: null, cost: 1 });
    expect(await message(acc.key, res.body.data.messages[0].id)).toMatchObject({
      encoding: null,
      segments: null,
      cost: 1,
    });
  });

  it('40 concurrent two-part sends against a wallet for 10 parts: exactly 5 sent, the rest 402, balance 0', async () => {
    const acc = await t.createAccount({ walletBalance: 10 * PRICE });
    const results = await Promise.all(Array.from({ length: 40 }, () => send(acc.key, sms(TWO_PARTS))));
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    const refused = results.filter((r) => r.status === 402);
    expect(refused).toHaveLength(35);
    expect(refused.every((r) => r.body.code === 'INSUFFICIENT_BALANCE')).toBe(true);
    expect((await account(acc.key)).walletBalance).toBe(0);
    const log = (await t.http().get('/api/v2/messages?limit=100').set('X-API-Key', acc.key)).body.data.messages as {
      status: string;
      segments: number;
    }[];
    expect(log.filter((m) => m.status === 'sent' && m.segments === 2)).toHaveLength(5);
  });

  it('40 concurrent two-part sends against free messages, quota and wallet for 10 parts (4 + 4 + 2): exactly 5 sent', async () => {
    const acc = await t.createAccount({ walletBalance: 2 * PRICE, freeMessages: 4, messageQuota: 4, messagesUsed: 0 });
    const results = await Promise.all(Array.from({ length: 40 }, () => send(acc.key, sms(TWO_PARTS))));
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    expect(await account(acc.key)).toMatchObject({
      walletBalance: 0,
      freeMessages: 0,
      plan: { messageQuota: 4, messagesUsed: 4 },
    });
  });

  it('a multi-part message is paid whole from one source: 1 free message left, a 2-part SMS is paid from the wallet', async () => {
    const acc = await t.createAccount({ walletBalance: 100, freeMessages: 1 });
    const res = await send(acc.key, sms(TWO_PARTS));
    expect(await message(acc.key, res.body.data.messages[0].id)).toMatchObject({
      paidFrom: 'wallet',
      cost: 2 * PRICE,
      segments: 2,
    });
    expect(await account(acc.key)).toMatchObject({ walletBalance: 100 - 2 * PRICE, freeMessages: 1 });
    // A one-part SMS then takes the free message.
    const one = await send(acc.key, sms('short'));
    expect(await message(acc.key, one.body.data.messages[0].id)).toMatchObject({
      paidFrom: 'free',
      cost: 0,
      segments: 1,
    });
  });

  it('402 when the parts cannot be paid although one part could', async () => {
    const acc = await t.createAccount({ walletBalance: 2 * PRICE, freeMessages: 2 });
    const res = await send(acc.key, sms('م'.repeat(135))); // 3 parts
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ success: false, code: 'INSUFFICIENT_BALANCE' });
    expect(await account(acc.key)).toMatchObject({ walletBalance: 2 * PRICE, freeMessages: 2 });
  });

  it('a failed multi-part message refunds every part to its source', async () => {
    const acc = await t.createAccount({ walletBalance: 100, freeMessages: 3, messageQuota: 10, messagesUsed: 0 });
    const fromFree = await send(acc.key, sms('م'.repeat(135), REJECTING)); // 3 parts: free messages
    expect(fromFree.body.data.messages[0]).toMatchObject({ status: 'failed', cost: 0, segments: 3 });
    const fromWallet = await send(acc.key, sms('😀'.repeat(99), REJECTING)); // 33 surrogate pairs per part: 3 parts
    expect(fromWallet.body.data.messages[0]).toMatchObject({
      status: 'failed',
      cost: 0,
      encoding: 'ucs2',
      segments: 3,
    });
    expect(await account(acc.key)).toMatchObject({ walletBalance: 100, freeMessages: 3, plan: { messagesUsed: 0 } });
    // A batch of three 2-part messages, one refused: the refused one's two parts come back.
    const batch = await send(acc.key, sms(TWO_PARTS, [phone(), REJECTING, phone()]));
    expect(batch.status).toBe(201);
    expect(batch.body.data.messages.map((m: { status: string }) => m.status)).toEqual(['sent', 'failed', 'sent']);
    // 6 parts were taken: 2 from free (3 free cover one message), 4 from the quota; the failed one's 2 came back.
    const a = await account(acc.key);
    expect(a.freeMessages + (a.plan.messageQuota - a.plan.messagesUsed)).toBe(3 + 10 - 4);
  });

  it('a scheduled multi-part message cancelled gives every part back', async () => {
    const acc = await t.createAccount({ walletBalance: 100 });
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const res = await send(acc.key, { ...sms('€'.repeat(100)), scheduleAt: at });
    expect(res.body.data.messages[0]).toMatchObject({
      status: 'scheduled',
      cost: 2 * PRICE,
      encoding: 'gsm7',
      segments: 2,
    });
    expect((await account(acc.key)).walletBalance).toBe(100 - 2 * PRICE);
    const cancelled = await t
      .http()
      .post(`/api/v2/messages/${res.body.data.messages[0].id}/cancel`)
      .set('X-API-Key', acc.key);
    expect(cancelled.status).toBe(200);
    expect((await account(acc.key)).walletBalance).toBe(100);
  });

  it('bulk: the dry run counts parts, rows show them, messagesPerSecond still counts messages', async () => {
    const acc = await t.createAccount({ walletBalance: 1000 });
    const messages = [
      bulkSms(phone(), TWO_PARTS),
      bulkSms(phone(), 'مرحبا'),
      bulkSms(phone(), 'hello'),
      { to: 'a@example.org', channel: 'email', messageType: 'free_text', content: { text: 'x', subject: 'y' } },
    ];
    const dry = await t
      .http()
      .post('/api/v2/messages/bulk/validate')
      .set('X-API-Key', acc.key)
      .send({ messagesPerSecond: 10, messages });
    expect(dry.status).toBe(200);
    expect(dry.body.data).toMatchObject({
      valid: 4,
      sms: { gsm7: 2, ucs2: 1, segments: 4 },
      estimatedCost: { wallet: 4 * PRICE + 1, unpaid: 0 },
      estimatedDurationSeconds: 1,
    });
    const created = await post(t, acc.key, { messagesPerSecond: 10, messages });
    expect(created.status).toBe(202);
    await waitStatus(t, acc.key, created.body.id, ['completed']);
    const rows = (await t.http().get(`/api/v2/messages/bulk/${created.body.id}/rows`).set('X-API-Key', acc.key)).body
      .data.rows as { status: string; encoding: string | null; segments: number | null }[];
    expect(rows.map((r) => [r.status, r.encoding, r.segments])).toEqual([
      ['sent', 'gsm7', 2],
      ['sent', 'ucs2', 1],
      ['sent', 'gsm7', 1],
      ['sent', null, null],
    ]);
    expect((await account(acc.key)).walletBalance).toBe(1000 - 4 * PRICE - 1);
  });
});
