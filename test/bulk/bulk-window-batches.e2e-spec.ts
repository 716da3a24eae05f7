import { WindowBatches } from '../../src/bulk/window-batches';
import { createTestApp, TestApp, TestAccount } from '../support/app';
import { BULK_TEST_ENV, deliveries, ds, maxInAnySecond, post, sms, waitStatus } from '../support/bulk-helpers';

/**
 * Many accounts' jobs sending at the same moment: their windows are written together (one claim, one
 * payment unit, one sent mark, one settlement per batch). What each account pays, what each job
 * sends and counts must be exactly what one job alone would have done.
 */
describe('Bulk windows of many jobs written together (e2e)', () => {
  let t: TestApp;
  const PRICE = 5;
  const ROWS = 15;

  beforeAll(async () => {
    // Provider calls get 5 s (the lease at least two of them), not the helpers' 1 s: this test is about
    // batching, and on a loaded CI box one sandbox call of a batch once took over 1 s and failed its row.
    t = await createTestApp({
      env: { ...BULK_TEST_ENV, PRICE_LOCAL_SMS: String(PRICE), PROVIDER_TIMEOUT_MS: '5000', BULK_LEASE_MS: '12000' },
    });
  });
  afterAll(() => t.close());

  const wallet = async (acc: TestAccount) =>
    (await t.http().get('/api/v2/account').set('X-API-Key', acc.key)).body.data;

  it('pays, sends and counts every job exactly, with accounts that run out of money in the middle of a batch', async () => {
    const rich = await Promise.all(
      Array.from({ length: 10 }, () => t.createAccount({ walletBalance: 1000, freeMessages: 0 })),
    );
    // 7 messages' worth: the job pauses for money after 7 rows.
    const poor = await Promise.all(
      Array.from({ length: 3 }, () => t.createAccount({ walletBalance: 7 * PRICE + 3, freeMessages: 0 })),
    );
    // 3 free messages, then 4 from the wallet.
    const mixed = await t.createAccount({ walletBalance: 4 * PRICE, freeMessages: 3 });
    const all = [...rich, ...poor, mixed];
    const stats = t.app.get(WindowBatches).stats;
    const before = { claims: stats.claims.batches, claimRequests: stats.claims.requests };

    const jobs = await Promise.all(
      all.map(async (acc) => {
        const res = await post(t, acc.key, {
          messagesPerSecond: 10,
          messages: Array.from({ length: ROWS }, () => sms()),
        });
        expect(res.status).toBe(202);
        return { acc, id: res.body.id as string };
      }),
    );
    const ended = await Promise.all(jobs.map((j) => waitStatus(t, j.acc.key, j.id, ['completed', 'paused'], 30_000)));

    for (const [k, job] of ended.entries()) {
      const { acc, id } = jobs[k];
      const paid = rich.includes(acc) ? ROWS : 7;
      expect({ status: job.status, pauseReason: job.pauseReason, counts: job.counts }).toEqual(
        paid === ROWS
          ? { status: 'completed', pauseReason: null, counts: { pending: 0, sent: ROWS, failed: 0, cancelled: 0 } }
          : {
              status: 'paused',
              pauseReason: 'insufficient_balance',
              counts: { pending: ROWS - 7, sent: 7, failed: 0, cancelled: 0 },
            },
      );
      // Each sent row reached the sandbox once, under its own message id, at most 10 in any second.
      const sent = await deliveries(t, id);
      expect(sent).toHaveLength(paid);
      expect(new Set(sent.map((d) => d.messageId)).size).toBe(paid);
      expect(new Set(sent.map((d) => d.rowIndex)).size).toBe(paid);
      expect(maxInAnySecond(sent.map((d) => Date.parse(d.deliveredAt)))).toBeLessThanOrEqual(10);
      // The log holds exactly the paid messages, each sent, and the account paid exactly for them.
      const [{ n, cost }] = await ds(t).query(
        "SELECT COUNT(*) AS n, COALESCE(SUM(cost), 0) AS cost FROM messages WHERE bulk_job_id = ? AND status = 'sent'",
        [id],
      );
      expect(Number(n)).toBe(paid);
      const a = await wallet(acc);
      if (acc === mixed) {
        expect(Number(cost)).toBe(4 * PRICE);
        expect({ wallet: a.walletBalance, free: a.freeMessages }).toEqual({ wallet: 0, free: 0 });
      } else {
        expect(Number(cost)).toBe(paid * PRICE);
        expect(a.walletBalance).toBe(rich.includes(acc) ? 1000 - ROWS * PRICE : 3);
      }
    }
    // The windows really went together: fewer claim batches than windows.
    const claims = t.app.get(WindowBatches).stats.claims;
    expect(claims.batches - before.claims).toBeLessThan(claims.requests - before.claimRequests);
  });
});
