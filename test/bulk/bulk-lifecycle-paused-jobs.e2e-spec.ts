import { createTestApp, TestApp } from '../support/app';
import { BULK_TEST_ENV, ds, post, sms, waitStatus } from '../support/bulk-helpers';

describe('Bulk dispatch with many paused jobs (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: BULK_TEST_ENV });
  });
  afterAll(async () => {
    await t.close();
  });

  it('a queued job runs although thousands of older jobs are paused by their users or for money', async () => {
    const acc = await t.createAccount();
    const other = await t.createAccount();
    // More paused jobs than the dispatcher looks at per tick, all older than the new job (ids sort by time).
    const now = Date.now();
    for (let chunk = 0; chunk < 11; chunk++) {
      const values: string[] = [];
      const params: (string | number)[] = [];
      for (let i = chunk * 500; i < (chunk + 1) * 500; i++) {
        values.push(`(?, ?, NULL, 'paused', ?, 1, 1, 1, 1, 0, 0, 0, 0, NULL, NULL, ?, ?)`);
        params.push(
          `bulk_00${String(i).padStart(10, '0')}paused`,
          i % 2 ? acc.id : other.id,
          i % 3 ? 'user' : 'insufficient_balance',
          now - 60_000,
          now - 60_000,
        );
      }
      await ds(t).query(
        `INSERT INTO bulk_jobs (id, account_id, name, status, pause_reason, messages_per_second, total, validated_count, pending_count, sent_count, failed_count, cancelled_count, invalid_count, lease_owner, lease_expires_at, created_at, updated_at)
         VALUES ${values.join(', ')}`,
        params,
      );
    }
    const mine = await post(t, acc.key, { messagesPerSecond: 10, messages: [sms(), sms()] });
    const theirs = await post(t, other.key, { messagesPerSecond: 10, messages: [sms()] });
    expect((await waitStatus(t, acc.key, mine.body.id, ['completed'], 10000)).counts.sent).toBe(2);
    expect((await waitStatus(t, other.key, theirs.body.id, ['completed'], 10000)).counts.sent).toBe(1);
  });
});
