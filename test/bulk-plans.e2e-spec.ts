import { createTestApp, TestApp } from './support/app';
import { isMysqlRun } from './support/database';
import { BULK_TEST_ENV, ds, post, sms } from './bulk-helpers';

// The hot queries must walk an index in order, never sort the job's rows (STACK-NOTES: a collation
// mismatch or a mixed ORDER BY turns a 100-row claim into a sort of every pending row).
const HOT_QUERIES: [string, string][] = [
  ['claim of pending rows', `SELECT idx, payload, message_id FROM bulk_rows WHERE job_id = ? AND status = 'pending' ORDER BY idx LIMIT 10`],
  ['rows left sending', `SELECT idx, payload, message_id FROM bulk_rows WHERE job_id = ? AND status = 'sending' ORDER BY idx LIMIT 10`],
  ['validation chunk', `SELECT idx, payload FROM bulk_rows WHERE job_id = ? AND idx >= 0 ORDER BY idx LIMIT 2000`],
  ['failed rows report', `SELECT idx FROM bulk_rows WHERE job_id = ? AND status = 'failed' AND idx > 5 ORDER BY idx LIMIT 101`],
  // The rows report as BulkJobsService.rows() reads it; its `pending` filter (pending + sending) is one
  // such query per status, merged in code: `status IN (...) ORDER BY idx` cannot walk one index range.
  ['pending rows report', `SELECT idx, status, to_addr, channel, message_id, error_code, error_message, sent_at FROM bulk_rows WHERE job_id = ? AND status = 'pending' AND idx > 5 ORDER BY idx LIMIT 101`],
  ['sending rows report', `SELECT idx, status, to_addr, channel, message_id, error_code, error_message, sent_at FROM bulk_rows WHERE job_id = ? AND status = 'sending' AND idx > 5 ORDER BY idx LIMIT 101`],
  ['unfiltered rows report', `SELECT idx, status, to_addr, channel, message_id, error_code, error_message, sent_at FROM bulk_rows WHERE job_id = ? AND idx > 5 ORDER BY idx LIMIT 101`],
];

describe('Bulk query plans (e2e)', () => {
  let t: TestApp;
  let jobId: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { ...BULK_TEST_ENV, BULK_VALIDATION_TICK_MS: '600000', BULK_DISPATCH_TICK_MS: '600000' } });
    const acc = await t.createAccount();
    const res = await post(t, acc.key, { messagesPerSecond: 10, messages: Array.from({ length: 3000 }, () => sms()) });
    jobId = res.body.id;
    if (isMysqlRun()) await ds(t).query('ANALYZE TABLE bulk_rows');
  });
  afterAll(async () => {
    await t.close();
  });

  it("the reaper's cancelled jobs with unsettled rows come from ix_bulk_jobs_unsettled", async () => {
    const query = `SELECT id, account_id FROM bulk_jobs WHERE status = 'cancelled' AND pending_count > 0 AND (lease_owner IS NULL OR lease_expires_at < ?) ORDER BY updated_at LIMIT 20`;
    // (Sorting the few unsettled cancelled jobs by updated_at is fine; reading every job is not.)
    if (isMysqlRun()) {
      const plan: Record<string, unknown>[] = await ds(t).query(`EXPLAIN ${query}`, [Date.now()]);
      // (On a small table MariaDB may prefer the other status-leading index; either reads only cancelled jobs.)
      expect(String(plan[0].key)).toMatch(/^ix_bulk_jobs_(unsettled|status)$/);
      expect(plan[0].type).not.toBe('ALL');
    } else {
      const plan: { detail: string }[] = await ds(t).query(`EXPLAIN QUERY PLAN ${query}`, [Date.now()]);
      expect(plan.map((p) => p.detail).join(' | ')).toMatch(/USING INDEX ix_bulk_jobs_unsettled/);
    }
  });

  it.each(HOT_QUERIES)('%s uses an index without sorting', async (_name, query) => {
    if (isMysqlRun()) {
      const plan: Record<string, unknown>[] = await ds(t).query(`EXPLAIN ${query}`, [jobId]);
      expect(plan).toHaveLength(1);
      expect(String(plan[0].key)).toMatch(/^(PRIMARY|ix_bulk_rows_status)$/);
      expect(String(plan[0].Extra ?? '')).not.toMatch(/filesort|temporary/i);
    } else {
      const plan: { detail: string }[] = await ds(t).query(`EXPLAIN QUERY PLAN ${query}`, [jobId]);
      const text = plan.map((p) => p.detail).join(' | ');
      expect(text).toMatch(/USING (INDEX|PRIMARY KEY|COVERING INDEX)/);
      expect(text).not.toMatch(/TEMP B-TREE/);
    }
  });
});
