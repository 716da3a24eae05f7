import { createTestApp, TestApp } from '../support/app';

const PHONE = '+966501234567';
const sms = (to: unknown = PHONE) => ({
  to,
  channel: 'local_sms',
  messageType: 'free_text',
  content: { text: 'Hello' },
});

/** Concurrent sends against a small balance: the database decides, nothing goes below zero. */
describe('Ledger under concurrency (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: { THROTTLE_LIMIT: '100000' } });
  });
  afterAll(async () => {
    await t.close();
  });

  const account = async (key: string) => (await t.http().get('/api/v2/account').set('X-API-Key', key)).body.data;
  const delivered = async (accountId: string) =>
    (await t.admin('get', `/admin/v1/sandbox/messages?accountId=${accountId}&limit=1000`)).body.data
      .messages as unknown[];
  const sentInLog = async (key: string) =>
    (await t.http().get('/api/v2/messages?status=sent&limit=100').set('X-API-Key', key)).body.data
      .messages as unknown[];

  it('50 parallel sends, wallet for exactly 10: 10 sent, 40 x 402, balance 0', async () => {
    const acc = await t.createAccount({ walletBalance: 50 }); // local_sms costs 5
    const results = await Promise.all(
      Array.from({ length: 50 }, () => t.http().post('/api/v2/messages/send').set('X-API-Key', acc.key).send(sms())),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 402)).toHaveLength(40);
    expect(results.filter((r) => r.status === 402).every((r) => r.body.code === 'INSUFFICIENT_BALANCE')).toBe(true);
    expect((await account(acc.key)).walletBalance).toBe(0);
    expect(await delivered(acc.id)).toHaveLength(10);
    expect(await sentInLog(acc.key)).toHaveLength(10);
  });

  it('50 parallel sends paid from free messages, quota and wallet (3 + 3 + 4): exactly 10 sent, every balance 0', async () => {
    const acc = await t.createAccount({ walletBalance: 20, freeMessages: 3, messageQuota: 5, messagesUsed: 2 });
    const results = await Promise.all(
      Array.from({ length: 50 }, () => t.http().post('/api/v2/messages/send').set('X-API-Key', acc.key).send(sms())),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    expect(results.filter((r) => r.status === 402)).toHaveLength(40);
    const a = await account(acc.key);
    expect(a).toMatchObject({ walletBalance: 0, freeMessages: 0, plan: { messageQuota: 5, messagesUsed: 5 } });
    const log = (await t.http().get('/api/v2/messages?limit=100').set('X-API-Key', acc.key)).body.data.messages as {
      paidFrom: string;
    }[];
    expect(log.map((m) => m.paidFrom).sort()).toEqual(
      [...Array(3).fill('free'), ...Array(3).fill('quota'), ...Array(4).fill('wallet')].sort(),
    );
    expect(await delivered(acc.id)).toHaveLength(10);
  });

  it('parallel batches are all-or-nothing: wallet for 20 messages, 10 batches of 5 -> exactly 4 batches sent', async () => {
    const acc = await t.createAccount({ walletBalance: 100 });
    const batch = ['+966501111111', '+966502222222', '+966503333333', '+966504444444', '+966505555555'];
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        t.http().post('/api/v2/messages/send').set('X-API-Key', acc.key).send(sms(batch)),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(4);
    expect(results.filter((r) => r.status === 402)).toHaveLength(6);
    expect((await account(acc.key)).walletBalance).toBe(0);
    expect(await delivered(acc.id)).toHaveLength(20);
  });

  it('refunds keep concurrent balances exact: 20 parallel sends to a rejecting number cost nothing', async () => {
    const acc = await t.createAccount({ walletBalance: 50 });
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        t.http().post('/api/v2/messages/send').set('X-API-Key', acc.key).send(sms('+966500000000')),
      ),
    );
    // Each send holds 5 until its rejection refunds it, so at most 10 are in flight at once: the
    // rest get 402. Whatever the interleaving, the balance ends where it started.
    expect(results.every((r) => r.status === 201 || r.status === 402)).toBe(true);
    expect(results.filter((r) => r.status === 201).every((r) => r.body.data.messages[0].status === 'failed')).toBe(
      true,
    );
    expect((await account(acc.key)).walletBalance).toBe(50);
    expect(await delivered(acc.id)).toHaveLength(0);
  });
});
