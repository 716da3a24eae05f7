import { createTestApp, TestApp } from '../support/app';
import { isMysqlRun } from '../support/database';
import { BULK_TEST_ENV, ds, post, sms } from '../support/bulk-helpers';
import type { Stmt } from '../../src/database/sql';
import { UnitOfWork } from '../../src/database/unit-of-work';
import { leaseStatements } from '../../src/bulk/bulk-job-leases.repository';
import { jobWindowStatements } from '../../src/bulk/bulk-job-windows.repository';
import { jobStatements } from '../../src/bulk/bulk-job.repository';
import { validationStatements } from '../../src/bulk/bulk-job-validation.repository';
import { rowStatements } from '../../src/bulk/bulk-row.repository';
import { windowRowStatements } from '../../src/bulk/window-rows.repository';
import { accountIdOf } from '../../src/common/account-id';
import { deliveryFactsStatements } from '../../src/messaging/message-delivery-facts';

// The hot queries must walk an index in order, never sort the job's rows (STACK-NOTES: a collation
// mismatch or a mixed ORDER BY turns a 100-row claim into a sort of every pending row). Each plan is
// of the statement the repositories build and the code runs, never a copy of its text.
const HOT_QUERIES: [string, (jobId: string) => Stmt][] = [
  ['claim of pending rows', (j) => windowRowStatements.windowRows(j, 'pending', 10)],
  ['rows left sending', (j) => windowRowStatements.windowRows(j, 'sending', 10)],
  ['validation chunk', (j) => rowStatements.payloads(j, 0, 2000)],
  [
    'first row of a status (next payment, first invalid row)',
    (j) => rowStatements.firstOfStatus(j, 'pending', 'channel'),
  ],
];

// Statements that read a job's rows against the window recorded on the job: the job by its primary
// key, its rows by a range of theirs (never a scan of bulk_rows, never a sort).
const WINDOW_QUERIES: [string, (jobId: string) => Stmt][] = [
  ['rows of windows in flight (a takeover)', (j) => windowRowStatements.inFlight([j, 'bulk_plan_0005'])],
  ['orphan rows of a cancelled job', (j) => windowRowStatements.orphans(j, 100)],
  ['cancel of the rows outside the window', (j) => rowStatements.cancelPending(j)],
];

// The rows report as BulkJobsService.rows() and the CSV export read it: the job's rows in index order,
// then their messages from messaging by primary key (encoding, segments: deliveryFactsStatements). Its
// `pending` filter (pending + sending) is one such query per status, merged in code: `status IN (...)
// ORDER BY idx` cannot walk one index range.
const REPORT_PAGES: [string, (jobId: string) => Stmt][] = [
  ['failed rows report', (j) => rowStatements.page(j, 'failed', 5, 101)],
  ['pending rows report', (j) => rowStatements.page(j, 'pending', 5, 101)],
  ['sending rows report', (j) => rowStatements.page(j, 'sending', 5, 101)],
  ['unfiltered rows report', (j) => rowStatements.page(j, null, 5, 101)],
];

async function plan(t: TestApp, stmt: Stmt): Promise<{ mysql: Record<string, unknown>[]; sqlite: string }> {
  if (isMysqlRun()) return { mysql: await ds(t).query(`EXPLAIN ${stmt.sql}`, stmt.params), sqlite: '' };
  const rows: { detail: string }[] = await ds(t).query(`EXPLAIN QUERY PLAN ${stmt.sql}`, stmt.params);
  return { mysql: [], sqlite: rows.map((p) => p.detail).join(' | ') };
}

describe('Bulk query plans (e2e)', () => {
  let t: TestApp;
  let jobId: string;
  beforeAll(async () => {
    t = await createTestApp({
      env: { ...BULK_TEST_ENV, BULK_VALIDATION_TICK_MS: '600000', BULK_DISPATCH_TICK_MS: '600000' },
    });
    const acc = await t.createAccount();
    const res = await post(t, acc.key, { messagesPerSecond: 10, messages: Array.from({ length: 3000 }, () => sms()) });
    jobId = res.body.id;
    // Finished jobs outnumber live ones on a real platform: the job-level plans are judged on such a table.
    const uow = t.app.get(UnitOfWork);
    for (let i = 0; i < 400; i++)
      await uow.run(
        jobStatements.create(`bulk_plan_${String(i).padStart(4, '0')}`, accountIdOf(acc.id), 'plans', 0, i),
      );
    await ds(t).query(`UPDATE bulk_jobs SET status = 'completed' WHERE id LIKE 'bulk_plan_%'`);
    // Messages of the account, as its rows report would find them (the report reads them by primary key).
    for (let i = 0; i < 2000; i += 500) {
      const ids = Array.from({ length: 500 }, (_, k) => `msg_plan_${String(i + k).padStart(4, '0')}`);
      await ds(t).query(
        `INSERT INTO messages (id, account_id, channel, message_type, recipient, status, cost, created_at, updated_at, attempts) VALUES ${ids.map(() => "(?, ?, 'local_sms', 'free_text', '+966501234567', 'delivered', 5, 0, 0, 0)").join(', ')}`,
        ids.flatMap((id) => [id, acc.id]),
      );
    }
    if (isMysqlRun()) await ds(t).query('ANALYZE TABLE bulk_rows, bulk_jobs, messages');
  });
  afterAll(async () => {
    await t.close();
  });

  it("the reaper's cancelled jobs with unsettled rows come from ix_bulk_jobs_unsettled", async () => {
    const p = await plan(t, leaseStatements.unsettledCancelled(Date.now(), 20));
    // (Sorting the few unsettled cancelled jobs by updated_at is fine; reading every job is not.)
    if (isMysqlRun()) {
      // (On a small table MariaDB may prefer the other status-leading index; either reads only cancelled jobs.)
      expect(String(p.mysql[0].key)).toMatch(/^ix_bulk_jobs_(unsettled|status)$/);
      expect(p.mysql[0].type).not.toBe('ALL');
    } else {
      expect(p.sqlite).toMatch(/USING INDEX ix_bulk_jobs_unsettled/);
    }
  });

  it('validation leases read only validating jobs, through a status-leading index', async () => {
    const p = await plan(
      t,
      validationStatements.candidates(Date.now(), 16, t.app.get(UnitOfWork).capabilities.skipLocked),
    );
    if (isMysqlRun()) {
      // (MariaDB may pick either status-leading index; both read only the validating jobs, never every job.)
      expect(String(p.mysql[0].key)).toMatch(/^ix_bulk_jobs_(status|unsettled)$/);
      expect(p.mysql[0].type).not.toBe('ALL');
    } else {
      expect(p.sqlite).toMatch(/USING INDEX ix_bulk_jobs_status/);
      expect(p.sqlite).not.toMatch(/TEMP B-TREE/);
    }
  });

  it("the events' read of jobs and the group queue's locked read find the jobs by primary key", async () => {
    const ids = ['bulk_plan_0001', 'bulk_plan_0002', 'bulk_plan_0003'];
    for (const stmt of [jobStatements.byIds(ids), validationStatements.lockForQueue(ids, false)]) {
      const p = await plan(t, stmt);
      if (isMysqlRun()) {
        expect(p.mysql).toHaveLength(1);
        expect(String(p.mysql[0].key)).toBe('PRIMARY');
        expect(String(p.mysql[0].Extra ?? '')).not.toMatch(/filesort|temporary/i);
      } else {
        expect(p.sqlite).toMatch(/SEARCH bulk_jobs USING (INDEX sqlite_autoindex_bulk_jobs_1|PRIMARY KEY) \(id=\?\)/);
        expect(p.sqlite).not.toMatch(/TEMP B-TREE/);
      }
    }
  });

  it("a group's rows (several jobs in one statement) read each job's range by primary key, never sorting", async () => {
    const p = await plan(
      t,
      rowStatements.payloadsOfJobs([
        { jobId, from: 0, limit: 300 },
        { jobId: 'bulk_other', from: 0, limit: 300 },
      ]),
    );
    if (isMysqlRun()) {
      const reads = p.mysql.filter((r) => r.table === 'bulk_rows');
      expect(reads).toHaveLength(2);
      for (const r of reads) expect(String(r.key)).toBe('PRIMARY');
      expect(p.mysql.map((r) => String(r.Extra ?? '')).join(' | ')).not.toMatch(/filesort|temporary/i);
    } else {
      expect(p.sqlite).toMatch(/USING (INDEX|PRIMARY KEY)/);
      expect(p.sqlite).not.toMatch(/TEMP B-TREE/);
    }
  });

  it("many jobs' windows (claims, settlements, renewals, counters) find their rows by primary key, never by a scan", async () => {
    const other = 'bulk_plan_0005';
    const rows = [0, 1, 2].flatMap((idx) => [
      { jobId, idx },
      { jobId: other, idx },
    ]);
    const settled = rows.map((r) => ({
      ...r,
      attempt: 0,
      messageId: `msg_${r.idx}`,
      status: 'sent' as const,
      code: null,
      message: null,
      at: 1,
    }));
    const syntax = t.app.get(UnitOfWork).capabilities.updateFrom;
    // (type: MySQL's access to the table: a range of index keys, the entries of one index key, or one
    // primary-key lookup per row of the list the UPDATE is joined to.)
    const cases: [string, Stmt, 'bulk_rows' | 'bulk_jobs', 'range' | 'ref' | 'eq_ref'][] = [
      [
        'pending rows after cursors',
        windowRowStatements.pendingInRanges([
          { jobId, after: 10, limit: 10 },
          { jobId: other, after: -1, limit: 10 },
        ]),
        'bulk_rows',
        'range',
      ],
      ['held rows', windowRowStatements.hold(syntax, settled), 'bulk_rows', 'eq_ref'],
      ['rows put back', windowRowStatements.putBack(syntax, settled), 'bulk_rows', 'eq_ref'],
      ['rows still taken (a settlement that lost some)', windowRowStatements.stillTaken(settled), 'bulk_rows', 'range'],
      [
        'windows opened',
        jobWindowStatements.openWindows(
          [
            { id: jobId, from: 0, to: 9 },
            { id: other, from: 10, to: 19 },
          ],
          1,
        ),
        'bulk_jobs',
        'range',
      ],
      ['settlement', windowRowStatements.settleOfJobs(syntax, 'sent', settled), 'bulk_rows', 'eq_ref'],
      ['failed settlement', windowRowStatements.settleOfJobs(syntax, 'failed', settled), 'bulk_rows', 'eq_ref'],
      ['renewal', jobWindowStatements.renewForWindows([jobId, other], 'rep_x', 1), 'bulk_jobs', 'range'],
      ['rate-limited jobs due', leaseStatements.rateLimitedDue(1, 1000), 'bulk_jobs', 'ref'],
      ['rate-limited jobs resumed', leaseStatements.resumeRateLimited([jobId, other], 1), 'bulk_jobs', 'range'],
      [
        'counters',
        jobWindowStatements.closeWindows(
          [
            { id: jobId, sent: 1, failed: 0 },
            { id: other, sent: 2, failed: 1 },
            { id: 'bulk_plan_0006', sent: 0, failed: 0 },
          ],
          'rep_x',
          1,
        ),
        'bulk_jobs',
        'range',
      ],
    ];
    for (const [name, stmt, table, type] of cases) {
      const p = await plan(t, stmt);
      if (isMysqlRun()) {
        const read = p.mysql.find((r) => r.table === table);
        // (bulk_rows: its primary key or (job_id, status, idx), both leading with the job; bulk_jobs: its
        // primary key, or a status-leading index when, as here, only a job or two is queued or running.)
        const keys =
          type === 'eq_ref'
            ? /^PRIMARY$/
            : table === 'bulk_rows'
              ? /^(PRIMARY|ix_bulk_rows_status)$/
              : /^(PRIMARY|ix_bulk_jobs_status|ix_bulk_jobs_unsettled)$/;
        expect({ name, key: String(read?.key), type: read?.type }).toEqual({
          name,
          key: expect.stringMatching(keys),
          type,
        });
      } else {
        expect({ name, plan: p.sqlite }).toEqual({
          name,
          plan: expect.stringMatching(/USING (INDEX|PRIMARY KEY|COVERING INDEX)/),
        });
        expect(p.sqlite).not.toMatch(new RegExp(`SCAN ${table}( |$)`));
      }
    }
    // Rows left `sending` of the jobs that recover: each job's part read in index order by primary key.
    const sending = await plan(
      t,
      windowRowStatements.windowRowsOfJobs(
        [
          { jobId, limit: 10 },
          { jobId: other, limit: 10 },
        ],
        'sending',
      ),
    );
    if (isMysqlRun())
      expect(sending.mysql.filter((r) => r.table === 'bulk_rows').map((r) => String(r.key))).toEqual([
        expect.stringMatching(/^(PRIMARY|ix_bulk_rows_status)$/),
        expect.stringMatching(/^(PRIMARY|ix_bulk_rows_status)$/),
      ]);
    else expect(sending.sqlite).not.toMatch(/SCAN bulk_rows( |$)/);
  });

  it.each(HOT_QUERIES)('%s uses an index without sorting', async (_name, build) => {
    const p = await plan(t, build(jobId));
    if (isMysqlRun()) {
      expect(p.mysql).toHaveLength(1);
      expect(String(p.mysql[0].key)).toMatch(/^(PRIMARY|ix_bulk_rows_status)$/);
      expect(String(p.mysql[0].Extra ?? '')).not.toMatch(/filesort|temporary/i);
    } else {
      expect(p.sqlite).toMatch(/USING (INDEX|PRIMARY KEY|COVERING INDEX)/);
      expect(p.sqlite).not.toMatch(/TEMP B-TREE/);
    }
  });

  it.each(WINDOW_QUERIES)('%s reads the job by its primary key and its rows by their index', async (_name, build) => {
    const p = await plan(t, build(jobId));
    if (isMysqlRun()) {
      const rows = p.mysql.filter((r) => ['r', 'bulk_rows'].includes(String(r.table)));
      const jobs = p.mysql.filter((r) => ['j', 'bulk_jobs'].includes(String(r.table)));
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows)
        expect({ key: String(r.key), type: r.type }).toEqual({
          key: expect.stringMatching(/^(PRIMARY|ix_bulk_rows_status)$/),
          type: expect.not.stringMatching(/^(ALL|index)$/),
        });
      for (const j of jobs) expect(String(j.key)).toBe('PRIMARY');
      expect(p.mysql.map((r) => String(r.Extra ?? '')).join(' | ')).not.toMatch(/filesort|temporary/i);
    } else {
      expect(p.sqlite).not.toMatch(/SCAN (r|j|bulk_rows|bulk_jobs)( |$)/);
      expect(p.sqlite).not.toMatch(/TEMP B-TREE/);
    }
  });

  it.each(REPORT_PAGES)('%s walks the rows in index order', async (_name, build) => {
    const p = await plan(t, build(jobId));
    if (isMysqlRun()) {
      expect(p.mysql).toHaveLength(1);
      expect(String(p.mysql[0].key)).toMatch(/^(PRIMARY|ix_bulk_rows_status)$/);
      expect(String(p.mysql[0].Extra ?? '')).not.toMatch(/filesort|temporary/i);
    } else {
      expect(p.sqlite).toMatch(/SEARCH bulk_rows USING (INDEX|PRIMARY KEY|COVERING INDEX)/);
      expect(p.sqlite).not.toMatch(/TEMP B-TREE/);
    }
  });

  it("the report's messages are read from messaging by primary key", async () => {
    const ids = Array.from({ length: 100 }, (_, i) => `msg_plan_${String(i * 7).padStart(4, '0')}`);
    const p = await plan(t, deliveryFactsStatements.of(ids));
    if (isMysqlRun()) {
      expect(p.mysql).toHaveLength(1);
      expect(String(p.mysql[0].key)).toBe('PRIMARY');
      expect(p.mysql[0].type).toBe('range');
    } else {
      expect(p.sqlite).toMatch(/SEARCH messages USING INDEX sqlite_autoindex_messages_1 \(id=\?\)/);
      expect(p.sqlite).not.toMatch(/TEMP B-TREE/);
    }
  });
});
