import type { DataSource } from 'typeorm';
import { insertRunningJob, openBulkTestDatabase } from './testing/bulk-test-database';
import type { UnitOfWork } from '../database/unit-of-work';
import { BulkJobWindowsRepository } from './bulk-job-windows.repository';
import { BulkJobRepository } from './bulk-job.repository';
import { BulkRowRepository, rowStatements } from './bulk-row.repository';
import { windowMessageId } from './window-rows';
import { WindowRowsRepository } from './window-rows.repository';
import { accountIdOf } from '../common/account-id';

describe(WindowRowsRepository.name, () => {
  let ds: DataSource;
  let uow: UnitOfWork;
  let windows: WindowRowsRepository;
  let rows: BulkRowRepository;
  let jobs: BulkJobRepository;
  const jobWindows = new BulkJobWindowsRepository();
  let ids = 0;

  beforeAll(async () => {
    ({ ds, uow } = await openBulkTestDatabase());
    windows = new WindowRowsRepository(uow);
    rows = new BulkRowRepository(uow);
    jobs = new BulkJobRepository(uow);
  });
  afterAll(async () => {
    await ds.destroy();
  });

  /** A `running` job leased to `rep_1` with `n` pending rows. */
  const runningJob = (n: number) => insertRunningJob({ ds, uow }, `bulk_${++ids}`, n);

  /** A window claimed (after no cursor) and recorded on its job (as WindowBatches does, in one unit). */
  const claim = (id: string, limit: number, recover: boolean, at: number, after = -1) =>
    uow.steps(function* () {
      const c = (yield* windows.claimWindows([{ jobId: id, limit, recover, after }], at)).get(id);
      if (!c) throw new Error(`no claim for ${id}`);
      if (c.opened) yield* jobWindows.openWindows([{ id, ...c.opened }], at);
      return c;
    });
  const windowOf = async (id: string) =>
    (await ds.query('SELECT window_from, window_to, window_at FROM bulk_jobs WHERE id = ?', [id]))[0];

  it('claims a window in index order under ids derived from its time, recorded on the job, and finds it again after a takeover', async () => {
    const id = await runningJob(5);
    const first = await claim(id, 2, true, 1_000);
    expect(first.rows.map((r) => [r.idx, r.messageId, r.fresh, r.payload])).toEqual([
      [0, windowMessageId(id, 0, 0, 1_000), true, '{"i":0}'],
      [1, windowMessageId(id, 1, 0, 1_000), true, '{"i":1}'],
    ]);
    expect([first.recovering, first.opened]).toEqual([false, { from: 0, to: 1 }]);
    expect(await windowOf(id)).toEqual({ window_from: 0, window_to: 1, window_at: 1_000 });
    // No row was written: the window is on the job only.
    expect(
      await ds.query(
        'SELECT COUNT(*) AS n FROM bulk_rows WHERE job_id = ? AND (status <> ? OR message_id IS NOT NULL)',
        [id, 'pending'],
      ),
    ).toEqual([{ n: 0 }]);
    // A takeover (recovering) gets the same rows under the same ids, not fresh (their messages may be in the log).
    const again = await claim(id, 3, true, 9_000);
    expect(again.rows.map((r) => [r.idx, r.messageId, r.fresh])).toEqual([
      [0, first.rows[0].messageId, false],
      [1, first.rows[1].messageId, false],
    ]);
    expect([again.recovering, again.opened]).toEqual([true, null]);
    // A cancel takes the other pending rows, never the window's.
    expect((await uow.run(rowStatements.cancelPending(id))).affected).toBe(3);
    expect((await rows.page(id, null, null, 10)).map((r) => r.status)).toEqual([
      'pending',
      'pending',
      'cancelled',
      'cancelled',
      'cancelled',
    ]);
  });

  it('ids derived for a window are the same for the same (job, row, attempt, time) and differ otherwise, sorting by time', () => {
    const id = windowMessageId('bulk_1', 3, 0, 1_000);
    expect(id).toMatch(/^msg_[0-9a-z]{24}$/);
    expect(windowMessageId('bulk_1', 3, 0, 1_000)).toBe(id);
    expect(
      new Set([
        id,
        windowMessageId('bulk_1', 3, 1, 1_000),
        windowMessageId('bulk_1', 4, 0, 1_000),
        windowMessageId('bulk_2', 3, 0, 1_000),
      ]).size,
    ).toBe(4);
    expect(windowMessageId('bulk_1', 3, 0, 2_000) > id).toBe(true);
  });

  it('settles a window once: outcomes, held and unsent rows, counters moved by the rows that moved, the window closed', async () => {
    const id = await runningJob(5);
    const { rows: taken } = await claim(id, 5, false, 1_000);
    const row = (i: number) => ({ idx: i, attempt: 0, messageId: taken[i].messageId });
    const outcomes = [
      { ...row(0), status: 'sent' as const, code: null, message: null, at: 50 },
      { ...row(1), status: 'failed' as const, code: 'PROVIDER_REJECTED' as const, message: 'no', at: 60 },
      // An outcome of another attempt (a stalled window settling a row retried since) moves nothing.
      { ...row(4), attempt: 1, status: 'sent' as const, code: null, message: null, at: 70 },
    ];
    const close = function* () {
      const moved = yield* windows.settleWindows([{ jobId: id, outcomes, held: [row(2)], unsent: [row(3)] }]);
      yield* jobWindows.closeWindows([{ id, ...moved, pause: null }], 'rep_1', 70);
      return moved;
    };
    expect(await uow.steps(close)).toEqual({ sent: 1, failed: 1 });
    // A second settle of the same rows (a stalled replica) moves and counts nothing.
    expect(await uow.steps(close)).toEqual({ sent: 0, failed: 0 });
    const page = await rows.page(id, null, null, 10);
    expect(page.map((r) => [r.idx, r.status, r.messageId, r.errorCode, r.sentAt])).toEqual([
      [0, 'sent', taken[0].messageId, null, 50],
      [1, 'failed', taken[1].messageId, 'PROVIDER_REJECTED', 60],
      [2, 'sending', taken[2].messageId, null, null],
      // Put back unpaid under the id it was taken with: a later window sends it under the same one.
      [3, 'pending', taken[3].messageId, null, null],
      [4, 'pending', null, null, null],
    ]);
    const job = await jobs.findOwned(accountIdOf('acc_1'), id);
    expect(job && [job.pendingCount, job.sentCount, job.failedCount]).toEqual([3, 1, 1]);
    expect(await windowOf(id)).toMatchObject({ window_from: null, window_to: null });
    // Recovering now finds the held row (under its stored id), then nothing taken: the next rows are new.
    const held = await claim(id, 5, true, 2_000);
    expect(held.rows.map((r) => [r.idx, r.messageId, r.fresh])).toEqual([[2, taken[2].messageId, false]]);
    expect(held.recovering).toBe(true);
    await uow.steps(() =>
      windows.settleWindows([
        {
          jobId: id,
          outcomes: [{ ...row(2), status: 'sent', code: null, message: null, at: 80 }],
          held: [],
          unsent: [],
        },
      ]),
    );
    const next = await claim(id, 5, true, 3_000);
    expect(next.rows.map((r) => [r.idx, r.messageId, r.fresh])).toEqual([
      [3, taken[3].messageId, false],
      [4, windowMessageId(id, 4, 0, 3_000), true],
    ]);
    expect([next.recovering, next.opened]).toEqual([false, { from: 3, to: 4 }]);
  });

  it('a late settlement by a replica that lost the lease does not close the window its successor opened', async () => {
    const id = await runningJob(3);
    const { rows: taken } = await claim(id, 1, false, 1_000);
    await ds.query("UPDATE bulk_jobs SET lease_owner = 'rep_2' WHERE id = ?", [id]);
    const moved = await uow.steps(function* () {
      const m = yield* windows.settleWindows([
        {
          jobId: id,
          outcomes: [
            { idx: 0, attempt: 0, messageId: taken[0].messageId, status: 'sent', code: null, message: null, at: 5 },
          ],
          held: [],
          unsent: [],
        },
      ]);
      yield* jobWindows.closeWindows([{ id, ...m, pause: null }], 'rep_1', 6);
      return m;
    });
    expect(moved).toEqual({ sent: 1, failed: 0 });
    expect(await windowOf(id)).toEqual({ window_from: 0, window_to: 0, window_at: 1_000 });
  });
});
