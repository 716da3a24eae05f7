import { UsageRepository } from '../../src/privacy/usage/usage.repository';
import { accountIdOf } from '../../src/common/account-id';
import { UnitOfWork } from '../../src/database/unit-of-work';
import { MessageLogRepository } from '../../src/messaging/message-log.repository';
import { messageLeaseStatements } from '../../src/messaging/scheduled/message-leases.repository';
import { TestApp } from '../support/app';
import { expectError } from '../support/envelope';
import { DAY, retentionApp, retentionHelpers } from './retention-helpers';

const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

// GET /api/v2/account/usage: the daily usage records the roll-up keeps from settled messages, equal to
// the costs of the messages they cover before and after retention deletes those messages.
describe('Account usage (e2e)', () => {
  let t: TestApp;
  let shiftMs = 0;
  const h = retentionHelpers(() => t);
  const usage = (key: string, query: Record<string, string> = {}) =>
    t.http().get('/api/v2/account/usage').query(query).set('X-API-Key', key);

  beforeAll(async () => {
    t = await retentionApp(() => shiftMs);
  });
  afterAll(async () => {
    await t.close();
  });

  it('totals equal the messages they cover under concurrent sends, by source and channel, and outlive the purge', async () => {
    // 3 free messages first, then the wallet; multi-part SMS cost per part.
    const acc = await t.createAccount({ freeMessages: 3 });
    const bodies = Array.from({ length: 24 }, (_, i) =>
      h.sms(`+9665010${String(i).padStart(5, '0')}`, i % 3 === 0 ? 'y'.repeat(200) : 'Hi'),
    );
    const sent = await Promise.all(bodies.map((b) => h.send(acc, b)));
    expect(sent.map((r) => r.status)).toEqual(bodies.map(() => 201));
    await h.sendSettled(acc, []);
    // Rolled up in small batches by concurrent units (as several replicas would): each message counted once.
    const repo = t.app.get(UsageRepository);
    await Promise.all(Array.from({ length: 6 }, () => repo.rollBatch(5, Date.now())));
    await h.rollUp();
    const truth = (
      await h.q<{ n: number | string; parts: number | string; cost: number | string }>(
        'SELECT COUNT(*) AS n, SUM(COALESCE(segments, 1)) AS parts, SUM(cost) AS cost FROM messages WHERE account_id = ? AND refunded_at IS NULL',
        acc.id,
      )
    )[0];
    const expected = { messages: Number(truth.n), parts: Number(truth.parts), cost: Number(truth.cost) };
    // The sandbox rejects +966501000000 (refunded: counts nothing); a failure after sending stays paid.
    expect(expected.messages).toBe(23);
    const free = await h.count(
      "SELECT COUNT(*) AS n FROM messages WHERE account_id = ? AND refunded_at IS NULL AND paid_from = 'free'",
      acc.id,
    );
    expect(expected.parts).toBeGreaterThan(24);
    const before = await usage(acc.key);
    expect(before.status).toBe(200);
    expect(before.body.data.totals).toEqual(expected);
    const today = before.body.data.periods.find((p: { period: string }) => p.period === dayOf(Date.now()));
    expect(today.bySource.free.messages).toBe(free);
    expect(today.bySource.free.cost).toBe(0);
    expect(today.bySource.wallet.messages).toBe(23 - free);
    expect(today.bySource.wallet.cost).toBe(expected.cost);
    expect(today.byChannel).toEqual([{ channel: 'local_sms', ...expected }]);
    expect(before.body.data.periods).toHaveLength(30);

    shiftMs = 91 * DAY;
    await h.purge();
    expect(await h.count('SELECT COUNT(*) AS n FROM messages WHERE account_id = ?', acc.id)).toBe(0);
    const after = await usage(acc.key, { from: dayOf(Date.now() - DAY), to: dayOf(Date.now()), granularity: 'month' });
    expect(after.status).toBe(200);
    expect(after.body.data.totals).toEqual(expected);
    expect(after.body.data.periods[after.body.data.periods.length - 1].period).toBe(dayOf(Date.now()).slice(0, 7));
    shiftMs = 0;
  });

  it('a member key needs messages:read', async () => {
    const acc = await t.createAccount();
    const member = await t.memberKey(acc.id, ['messages:create']);
    expectError(await usage(member), 403, 'FORBIDDEN');
    const reader = await t.memberKey(acc.id, ['messages:read']);
    expect((await usage(reader)).status).toBe(200);
  });

  it('a bad range is 400 VALIDATION_ERROR naming the field', async () => {
    const acc = await t.createAccount();
    for (const [query, field] of [
      [{ from: '2026-13-01' }, /from/],
      [{ to: 'yesterday' }, /to/],
      [{ from: '2026-11-20', to: '2026-11-19' }, /from/],
      [{ from: '2024-01-01', to: '2026-11-19' }, /400 days/],
      [{ granularity: 'week' }, /granularity/],
    ] as [Record<string, string>, RegExp][])
      expectError(await usage(acc.key, query), 400, 'VALIDATION_ERROR', field);
  });

  // The scheduled sender's reads across accounts range at usage_counted_at IS NULL
  // (ix_messages_counted_status): a message back in `queued` must have lost its count mark.
  it('a counted failed message paid again (requeue) loses its count mark, so the stale-queued read finds it', async () => {
    const acc = await t.createAccount();
    const [id] = await h.sendSettled(acc, [h.sms('+966501000099')]);
    await h.rollUp();
    await h.q("UPDATE messages SET status = 'failed' WHERE id = ?", id);
    expect(await h.count('SELECT COUNT(*) AS n FROM messages WHERE id = ? AND usage_counted_at IS NOT NULL', id)).toBe(
      1,
    );
    const now = Date.now() + shiftMs;
    const funding = { source: 'wallet' as const, amount: 5, units: 1 };
    expect(
      await t.app
        .get(MessageLogRepository)
        .requeue(accountIdOf(acc.id), id, funding, { encoding: null, segments: null }, now),
    ).toBe(true);
    expect(
      await h.count(
        "SELECT COUNT(*) AS n FROM messages WHERE id = ? AND status = 'queued' AND usage_counted_at IS NULL",
        id,
      ),
    ).toBe(1);
    const stale = await t.app.get(UnitOfWork).read(messageLeaseStatements.staleQueued(now + 1, now + 1, 1000));
    expect(stale.map((m) => m.id)).toContain(id);
  });
});
