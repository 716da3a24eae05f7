import type { DataSource } from 'typeorm';
import { RetryWithout } from '../common/coalescer';
import { loadConfig } from '../config/app-config';
import type { UnitOfWork } from '../database/unit-of-work';
import { insertRunningJob, openBulkTestDatabase } from './testing/bulk-test-database';
import { BulkJobWindowsRepository } from './bulk-job-windows.repository';
import { BulkSettings } from './bulk-settings';
import { ClaimRequest, SettleRequest, WindowBatches } from './window-batches';
import { ClaimedRow, SettledRow, takenOf } from './window-rows';
import { WindowRowsRepository } from './window-rows.repository';

describe(WindowBatches.name, () => {
  let ds: DataSource;
  let uow: UnitOfWork;
  let sut: WindowBatches;
  let ids = 0;

  beforeAll(async () => {
    ({ ds, uow } = await openBulkTestDatabase());
    const settings = new BulkSettings(loadConfig({ DATABASE_URL: 'sqlite::memory:', NODE_ENV: 'test' }));
    sut = new WindowBatches(uow, new BulkJobWindowsRepository(), new WindowRowsRepository(uow), settings);
  });
  afterAll(async () => {
    await ds.destroy();
  });

  /** A `running` job leased to `owner` with `n` pending rows. */
  const runningJob = (n: number, owner = 'rep_1') => insertRunningJob({ ds, uow }, `bulk_wb_${++ids}`, n, owner);
  const ask = (jobId: string, o: Partial<ClaimRequest> = {}): ClaimRequest => ({
    jobId,
    limit: 2,
    recover: false,
    after: -1,
    owner: 'rep_1',
    leaseUntil: 20_000,
    at: 1_000,
    ...o,
  });
  const sent = (rows: ClaimedRow[]): SettledRow[] =>
    rows.map((r) => ({ ...takenOf(r), status: 'sent', code: null, message: null, at: 1_500 }));
  const end = (jobId: string, o: Partial<SettleRequest> = {}): SettleRequest => ({
    jobId,
    owner: 'rep_1',
    outcomes: [],
    held: [],
    unsent: [],
    pause: null,
    now: 2_000,
    ...o,
  });
  const job = async (id: string) =>
    (
      (await ds.query(
        'SELECT status, lease_owner, pending_count, sent_count, window_from, window_to FROM bulk_jobs WHERE id = ?',
        [id],
      )) as Record<string, unknown>[]
    )[0];
  const statuses = async (id: string) =>
    ((await ds.query('SELECT status FROM bulk_rows WHERE job_id = ? ORDER BY idx', [id])) as { status: string }[]).map(
      (r) => r.status,
    );
  const claimed = async (req: ClaimRequest): Promise<ClaimedRow[]> => {
    const c = await sut.claim(req);
    if (!c) throw new Error(`${req.jobId} not claimed`);
    return c.rows;
  };

  it('claims a lone window as a batch of one: after the cursor, else from the job start when nothing is after it', async () => {
    const id = await runningJob(5);
    await ds.query(`UPDATE bulk_rows SET status = 'sent' WHERE job_id = ? AND idx >= 2`, [id]);
    const before = { ...sut.stats.claims };
    // Nothing pending after the cursor (4): the job's first pending rows (held behind it), recorded as its window.
    const c = await sut.claim(ask(id, { after: 4, limit: 3 }));
    expect(c && { idx: c.rows.map((r) => r.idx), recovering: c.recovering }).toEqual({
      idx: [0, 1],
      recovering: false,
    });
    expect(await job(id)).toMatchObject({ window_from: 0, window_to: 1 });
    expect(sut.stats.claims).toEqual({ requests: before.requests + 1, batches: before.batches + 1 });
  });

  it("claims windows of several owners in one batch, each renewed under its owner; a job not the asker's answers null", async () => {
    const [a, b, c] = [await runningJob(3), await runningJob(3, 'rep_2'), await runningJob(3, 'rep_2')];
    const before = { ...sut.stats.claims };
    const answers = await Promise.all([sut.claim(ask(a)), sut.claim(ask(b, { owner: 'rep_2' })), sut.claim(ask(c))]);
    expect(answers.map((x) => x && x.rows.map((r) => r.idx))).toEqual([[0, 1], [0, 1], null]);
    expect(sut.stats.claims).toEqual({ requests: before.requests + 3, batches: before.batches + 1 });
    expect(await job(c)).toMatchObject({ window_from: null, lease_owner: 'rep_2' });
  });

  it('settles windows with held and unsent rows and a pause in the same batch as plain ones', async () => {
    const [a, b] = [await runningJob(2), await runningJob(4)];
    const [ra, rb] = await Promise.all([claimed(ask(a)), claimed(ask(b, { limit: 4 }))]);
    const before = { ...sut.stats.settlements };
    const pause = { reason: 'insufficient_balance' as const, resumeAt: null };
    const answers = await Promise.all([
      sut.settle(end(a, { outcomes: sent(ra) })),
      sut.settle(
        end(b, { outcomes: sent(rb.slice(0, 1)), held: [takenOf(rb[1])], unsent: rb.slice(2).map(takenOf), pause }),
      ),
    ]);
    expect(answers).toEqual([
      { settled: 2, paused: false },
      { settled: 1, paused: true },
    ]);
    expect(sut.stats.settlements).toEqual({ requests: before.requests + 2, batches: before.batches + 1 });
    expect(await statuses(b)).toEqual(['sent', 'sending', 'pending', 'pending']);
    expect(await job(a)).toMatchObject({ status: 'running', pending_count: 0, sent_count: 2, window_from: null });
    expect(await job(b)).toMatchObject({ status: 'paused', lease_owner: null, pending_count: 3, sent_count: 1 });
  });

  it('undoes a batch whose rows were settled elsewhere and names the windows that lost them (RetryWithout)', async () => {
    const [a, b, c] = [await runningJob(2), await runningJob(2), await runningJob(2)];
    const [ra, rb, rc] = await Promise.all([claimed(ask(a)), claimed(ask(b)), claimed(ask(c))]);
    // Another replica (the next lease holder) settled b's second row first.
    await ds.query(`UPDATE bulk_rows SET status = 'sent' WHERE job_id = ? AND idx = 1`, [b]);
    const reqs = [end(a, { outcomes: sent(ra) }), end(b, { outcomes: sent(rb) }), end(c, { outcomes: sent(rc) })];
    const err: unknown = await sut.settleWindows(reqs).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RetryWithout);
    expect(err instanceof RetryWithout && err.indexes).toEqual([1]);
    expect([await statuses(a), await job(a)]).toEqual([
      ['pending', 'pending'],
      expect.objectContaining({ sent_count: 0 }),
    ]);
    // Through the coalescer: the others together, then b alone, counting only the row it moved.
    const answers = await Promise.all(reqs.map((r) => sut.settle(r)));
    expect(answers.map((x) => x.settled)).toEqual([2, 1, 2]);
    expect(await job(b)).toMatchObject({ pending_count: 1, sent_count: 1, window_from: null });
    expect(await job(c)).toMatchObject({ pending_count: 0, sent_count: 2, window_from: null });
  });

  it('a lone window settled again (a stalled replica) moves and counts nothing', async () => {
    const id = await runningJob(2);
    const req = end(id, { outcomes: sent(await claimed(ask(id))) });
    await expect(sut.settle(req)).resolves.toEqual({ settled: 2, paused: false });
    await expect(sut.settle(req)).resolves.toEqual({ settled: 0, paused: false });
    expect(await job(id)).toMatchObject({ pending_count: 0, sent_count: 2 });
  });
});
