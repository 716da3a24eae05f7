import { BulkDispatcher } from '../../src/bulk/bulk-dispatcher';
import { BulkJobLeasesRepository } from '../../src/bulk/bulk-job-leases.repository';
import { BulkValidationLoop } from '../../src/bulk/bulk-validation.loop';
import { createTestApp, TestApp } from '../support/app';
import { BULK_TEST_ENV, deliveries, ds, post, sms, waitStatus } from '../support/bulk-helpers';

/**
 * A job leased again (after a takeover, a pause or a restart) paces after the sends of the last
 * second, whoever made them; a job none of whose rows was settled in that second (a fresh one, or one
 * leased again later) has none, and its runner does not read the job's rows for them.
 */
describe('Bulk pacing when a job is leased again (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { ...BULK_TEST_ENV, SCHEDULERS_ENABLED: 'false' } });
  });
  afterAll(() => t.close());

  const MPS = 5;
  const job = async () => {
    const acc = await t.createAccount({ walletBalance: 1000, freeMessages: 0 });
    const res = await post(t, acc.key, { messagesPerSecond: MPS, messages: Array.from({ length: 10 }, () => sms()) });
    expect(res.status).toBe(202);
    await t.app.get(BulkValidationLoop).runOnce();
    return { acc, id: res.body.id as string };
  };
  const claim = (id: string) =>
    t.app.get(BulkJobLeasesRepository).claimTurns([id], 'rep_test', Date.now() + 60_000, Date.now());
  const release = (id: string) => t.app.get(BulkJobLeasesRepository).release(id, 'rep_test');

  it('the claim tells a job with a row settled in the last second from one without, read under the lease', async () => {
    const { id } = await job();
    const fresh = await claim(id);
    expect([...fresh.won]).toEqual([id]);
    expect([...fresh.quiet]).toEqual([id]);
    await release(id);
    // One row settled as failed just now counts as settled: it has a send time too. A settlement
    // writes the row and the job's counters (and updated_at) in one unit.
    const at = Date.now();
    await ds(t).query(
      "UPDATE bulk_rows SET status = 'failed', error_code = 'PROVIDER_ERROR', sent_at = ? WHERE job_id = ? AND idx = 0",
      [at, id],
    );
    await ds(t).query(
      'UPDATE bulk_jobs SET pending_count = pending_count - 1, failed_count = 1, updated_at = ? WHERE id = ?',
      [at, id],
    );
    const again = await claim(id);
    expect([...again.won]).toEqual([id]);
    expect([...again.quiet]).toEqual([]);
    await release(id);
    // The same job leased again more than a second after its last settlement (a restart, a takeover).
    await ds(t).query('UPDATE bulk_rows SET sent_at = ? WHERE job_id = ? AND idx = 0', [at - 2000, id]);
    await ds(t).query('UPDATE bulk_jobs SET updated_at = ? WHERE id = ?', [at - 2000, id]);
    const later = await claim(id);
    expect([...later.won]).toEqual([id]);
    expect([...later.quiet]).toEqual([id]);
    await release(id);
  });

  it('a job whose last runner sent a full second just now waits for that second to pass before its next send', async () => {
    const { acc, id } = await job();
    // An earlier runner settled rows 0-4 as sent at `at` (a full second's worth at 5/s), then let go.
    const at = Date.now();
    await ds(t).query("UPDATE bulk_rows SET status = 'sent', sent_at = ? WHERE job_id = ? AND idx < 5", [at, id]);
    await ds(t).query('UPDATE bulk_jobs SET pending_count = 5, sent_count = 5, updated_at = ? WHERE id = ?', [at, id]);
    await t.app.get(BulkDispatcher).tick();
    const done = await waitStatus(t, acc.key, id, ['completed']);
    expect(done.counts).toEqual({ pending: 0, sent: 10, failed: 0, cancelled: 0 });
    const sent = await deliveries(t, id);
    expect(sent.map((d) => d.rowIndex).sort((a, b) => a - b)).toEqual([5, 6, 7, 8, 9]);
    // No one-second window holds more than 5 sends, counting the earlier runner's.
    for (const d of sent) expect(Date.parse(d.deliveredAt)).toBeGreaterThanOrEqual(at + 1000);
  });
});
