import { createTestApp, REQUEST_ID_RE, TestAccount, TestApp } from '../support/app';
import { BULK_TEST_ENV_PATIENT, ds, phone, sms, waitStatus, post } from '../support/bulk-helpers';

type Body = Record<string, unknown> | string;

function expectError(res: { status: number; body: Record<string, unknown> }, status: number, code: string): void {
  expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
  expect(res.body).toEqual({
    success: false,
    code,
    error: expect.any(String),
    requestId: expect.stringMatching(REQUEST_ID_RE),
  });
}

const email = (to = `u${Math.random().toString(36).slice(2, 8)}@example.com`) => ({
  to,
  channel: 'email',
  messageType: 'free_text',
  content: { subject: 'Hi', text: 'Hello' },
});
const badPhone = (i: number) => sms(`12${i}`);

describe('Bulk dry run: POST /api/v2/messages/bulk/validate (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: BULK_TEST_ENV_PATIENT });
  });
  afterAll(async () => {
    await t.close();
  });

  const validate = (key: string, body: Body) =>
    t
      .http()
      .post('/api/v2/messages/bulk/validate')
      .set('X-API-Key', key)
      .set('Content-Type', 'application/json')
      .send(typeof body === 'string' ? body : JSON.stringify(body));

  /** Everything a dry run must leave alone: jobs, rows, the message log and the account's balances. */
  const snapshot = async (acc: TestAccount) => {
    const count = async (table: string) => Number((await ds(t).query(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);
    const [a] = await ds(t).query('SELECT wallet_balance, free_messages, messages_used FROM accounts WHERE id = ?', [
      acc.id,
    ]);
    return {
      jobs: await count('bulk_jobs'),
      rows: await count('bulk_rows'),
      messages: await count('messages'),
      balance: [Number(a.wallet_balance), Number(a.free_messages), Number(a.messages_used)],
    };
  };

  it('counts, channels, the first 100 errors in row order and the duration; stores nothing', async () => {
    const acc = await t.createAccount({ walletBalance: 1_000_000 });
    const messages: Record<string, unknown>[] = [];
    for (let i = 0; i < 230; i++) messages.push(i % 23 < 15 ? badPhone(i) : i % 23 < 21 ? sms() : email());
    const before = await snapshot(acc);
    const res = await validate(acc.key, { name: 'campaign', messagesPerSecond: 3, messages });
    expect(res.status).toBe(200);
    const invalidIdx = messages.map((m, i) => (String(m.to).startsWith('12') ? i : -1)).filter((i) => i >= 0);
    expect(invalidIdx).toHaveLength(150);
    expect(res.body).toEqual({
      success: true,
      data: {
        total: 230,
        valid: 80,
        invalid: 150,
        errors: invalidIdx.slice(0, 100).map((index) => ({
          index,
          code: 'INVALID_RECIPIENT',
          error: expect.stringContaining('not a valid phone number'),
        })),
        suppressed: 0,
        suppressedRows: [],
        purposes: { transactional: 80, marketing: 0 },
        channels: { email: 20, local_sms: 60 },
        sms: { gsm7: 60, ucs2: 0, segments: 60 },
        estimatedCost: { free: 0, quota: 0, wallet: 60 * 5 + 20 * 1, unpaid: 0, currency: 'SAR' },
        estimatedDurationSeconds: Math.ceil(80 / 3),
      },
    });
    expect(await snapshot(acc)).toEqual(before);
  });

  it('reports exactly what the validation of a real job finds (same validator, same codes and messages)', async () => {
    const acc = await t.createAccount();
    const messages = [
      sms(),
      badPhone(1),
      { ...sms(), sender: 'NotApproved' },
      { to: phone(), channel: 'pigeon', messageType: 'free_text', content: { text: 'x' } },
      { ...sms(), content: {} },
      email('not-an-email'),
      { ...sms(), extra: 1 },
    ];
    const dry = await validate(acc.key, { messagesPerSecond: 5, messages });
    expect(dry.status).toBe(200);
    const job = await post(t, acc.key, { messagesPerSecond: 5, messages });
    expect(job.status).toBe(202);
    await waitStatus(t, acc.key, job.body.id, ['rejected']);
    const rows = await t
      .http()
      .get(`/api/v2/messages/bulk/${job.body.id}/rows?status=invalid`)
      .set('X-API-Key', acc.key);
    const real = rows.body.data.rows.map((r: { index: number; errorCode: string; errorMessage: string }) => ({
      index: r.index,
      code: r.errorCode,
      error: r.errorMessage,
    }));
    expect(real).toHaveLength(6);
    expect(dry.body.data.errors).toEqual(real);
    expect(dry.body.data).toMatchObject({ total: 7, valid: 1, invalid: 6, channels: { local_sms: 1 } });
  });

  describe('estimated cost: the valid rows paid as a running job pays them, from the balance as it is now', () => {
    it('free messages pay first', async () => {
      const acc = await t.createAccount({ freeMessages: 5, walletBalance: 0 });
      const res = await validate(acc.key, { messagesPerSecond: 10, messages: [sms(), sms(), email()] });
      expect(res.body.data.estimatedCost).toEqual({ free: 3, quota: 0, wallet: 0, unpaid: 0, currency: 'SAR' });
    });

    it('then the plan quota (what is left of it)', async () => {
      const acc = await t.createAccount({
        freeMessages: 1,
        planName: 'Basic',
        messageQuota: 10,
        messagesUsed: 8,
        walletBalance: 0,
      });
      const res = await validate(acc.key, { messagesPerSecond: 10, messages: [sms(), sms(), sms()] });
      expect(res.body.data.estimatedCost).toEqual({ free: 1, quota: 2, wallet: 0, unpaid: 0, currency: 'SAR' });
    });

    /** The balance a real job of `body` takes: [wallet, free messages, quota], once it reached one of `statuses`. */
    const realSpend = async (acc: TestAccount, body: Record<string, unknown>, statuses: string[]) => {
      const before = await snapshot(acc);
      const job = await post(t, acc.key, body);
      expect(job.status).toBe(202);
      const settled = await waitStatus(t, acc.key, job.body.id, statuses, 30000);
      const after = await snapshot(acc);
      return {
        job: settled,
        spent: [
          before.balance[0] - after.balance[0],
          before.balance[1] - after.balance[1],
          after.balance[2] - before.balance[2],
        ],
      };
    };

    it('the wallet pays at each channel’s price, in one payment per channel of each window (channels in order of first appearance), as the real job then does', async () => {
      const acc = await t.createAccount({
        freeMessages: 2,
        planName: 'Basic',
        messageQuota: 3,
        messagesUsed: 1,
        walletBalance: 1000,
      });
      // One window of 10: the four sms take the free messages and the quota, the three emails the wallet.
      const body = { messagesPerSecond: 10, messages: [sms(), email(), sms(), email(), sms(), email(), sms()] };
      const dry = await validate(acc.key, body);
      expect(dry.body.data.estimatedCost).toEqual({ free: 2, quota: 2, wallet: 3, unpaid: 0, currency: 'SAR' });
      expect((await realSpend(acc, body, ['completed'])).spent).toEqual([3, 2, 2]);
    });

    it('when the money runs out: the unpayable messages and every later one are `unpaid`; the real job pauses having taken exactly the rest', async () => {
      const acc = await t.createAccount({ freeMessages: 1, walletBalance: 7 });
      // Windows of 2: [sms free, email 1]; [sms 5, sms unpaid] -> paused; [email] never reached.
      const body = { messagesPerSecond: 2, messages: [sms(), email(), sms(), sms(), email()] };
      const dry = await validate(acc.key, body);
      expect(dry.body.data).toMatchObject({
        valid: 5,
        estimatedCost: { free: 1, quota: 0, wallet: 6, unpaid: 2, currency: 'SAR' },
        estimatedDurationSeconds: 3,
      });
      const real = await realSpend(acc, body, ['paused']);
      expect(real.job).toMatchObject({
        pauseReason: 'insufficient_balance',
        counts: { pending: 2, sent: 3, failed: 0, cancelled: 0 },
      });
      expect(real.spent).toEqual([6, 1, 0]);
    });
  });

  it('streams a body over the JSON body limit (1 MB) like bulk creation, without an Idempotency-Key', async () => {
    const acc = await t.createAccount({ walletBalance: 1_000_000 });
    const messages = Array.from({ length: 10_000 }, (_, i) =>
      sms(undefined, `Hello customer ${i}, your order is on its way`),
    );
    const body = JSON.stringify({ messagesPerSecond: 10, messages });
    expect(body.length).toBeGreaterThan(1024 * 1024);
    const before = await snapshot(acc);
    const res = await validate(acc.key, body);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      total: 10_000,
      valid: 10_000,
      invalid: 0,
      errors: [],
      channels: { local_sms: 10_000 },
      estimatedDurationSeconds: 1000,
    });
    expect(await snapshot(acc)).toEqual(before);
  });

  describe('request errors are those of bulk creation, and nothing is stored', () => {
    const cases: [string, Body, number, string][] = [
      ['not JSON', '{"messagesPerSecond": 1, "messages": [', 400, 'INVALID_REQUEST_BODY'],
      ['not an object', '[1,2]', 400, 'INVALID_REQUEST_BODY'],
      ['name not a string', { name: 5, messagesPerSecond: 1, messages: [sms()] }, 400, 'INVALID_REQUEST_BODY'],
      ['messagesPerSecond missing', { messages: [sms()] }, 400, 'MESSAGES_PER_SECOND_INVALID'],
      ['messagesPerSecond 11', { messagesPerSecond: 11, messages: [sms()] }, 400, 'MESSAGES_PER_SECOND_INVALID'],
      ['messages empty', { messagesPerSecond: 1, messages: [] }, 400, 'MESSAGES_REQUIRED'],
      [
        'an element with to as an array',
        { messagesPerSecond: 1, messages: [sms(), { ...sms(), to: [phone()] }] },
        400,
        'INVALID_MESSAGE',
      ],
      [
        'an element with scheduleAt',
        { messagesPerSecond: 1, messages: [{ ...sms(), scheduleAt: '2030-01-01T00:00:00Z' }] },
        400,
        'INVALID_MESSAGE',
      ],
    ];
    it.each(cases)('%s -> %s %s', async (_what, body, status, code) => {
      const acc = await t.createAccount();
      const before = await snapshot(acc);
      expectError(await validate(acc.key, body), status, code);
      expect(await snapshot(acc)).toEqual(before);
    });

    it('an element over BULK_MAX_ELEMENT_BYTES: 400 INVALID_MESSAGE naming it, connection closed', async () => {
      const acc = await t.createAccount();
      const res = await validate(acc.key, {
        messagesPerSecond: 1,
        messages: [sms(), sms(undefined, 'x'.repeat(70_000))],
      });
      expectError(res, 400, 'INVALID_MESSAGE');
      expect(res.body.error).toBe('messages[1] is larger than 65536 bytes');
      expect(res.headers.connection).toBe('close');
    });

    it('403 SUBSCRIPTION_INACTIVE; 403 FORBIDDEN without messages:create', async () => {
      const inactive = await t.createAccount({ subscriptionActive: false });
      expectError(
        await validate(inactive.key, { messagesPerSecond: 1, messages: [sms()] }),
        403,
        'SUBSCRIPTION_INACTIVE',
      );
      const acc = await t.createAccount();
      const reader = await t.memberKey(acc.id, ['messages:read']);
      expectError(await validate(reader, { messagesPerSecond: 1, messages: [sms()] }), 403, 'FORBIDDEN');
    });
  });
});
