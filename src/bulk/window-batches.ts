import { Injectable } from '@nestjs/common';
import { Coalescer, LEFT_OUT, BatchAnswer } from '../common/coalescer';
import { UnitOfWork } from '../database/unit-of-work';
import type { Row, StmtResult, Steps } from '../database/sql';
import { num } from './bulk-records';
import { BulkJobLeases, leaseStatements, WindowPauseMove } from './bulk-job-leases.repository';
import { BulkRowRepository, rowStatements } from './bulk-row.repository';
import { ClaimedRow, SettledRow, TakenRow, toClaimedRow } from './window-rows';
import { BulkSettings } from './bulk-settings';
import { WindowTxProbe } from './window-tx-probe';

/** A window's start: renew the job's lease (its check that the job is still ours and to run), then claim its rows. */
export interface ClaimRequest {
  jobId: string;
  limit: number;
  /** Rows left `sending` are taken first (the first window of a lease, or after one that left some). */
  recover: boolean;
  /** The last index the runner claimed (-1: none yet): its pending rows are looked for after it. */
  after: number;
  owner: string;
  leaseUntil: number;
  /** Now: the time a window opened by this claim records (its rows' message ids derive from it). */
  at: number;
}
/** null: the lease was lost or the job is no longer to run. `recovering`: rows taken before were found (look again next window). */
export type ClaimAnswer = { rows: ClaimedRow[]; recovering: boolean } | null;

/** A window's end: its rows settled, unsent rows back to `pending`, the job's counters, its pause if any. */
export interface SettleRequest {
  jobId: string;
  owner: string;
  outcomes: SettledRow[];
  /** Rows whose paid message is still open: marked `sending`. */
  held: TakenRow[];
  /** Rows not attempted and unpaid: `pending` again, under their ids. */
  unsent: TakenRow[];
  pause: WindowPauseMove | null;
  now: number;
}
export interface SettleAnswer {
  settled: number;
  paused: boolean;
}

/** Rows per batch: a few statements of at most this many rows (well under every dialect's parameter limit). */
const MAX_BATCH_ROWS = 2000;

/**
 * The dispatch windows of many jobs written together. Each job's runner asks for its window's start
 * and end as before; requests that arrive while a batch is being written go in the next one
 * (Coalescer), so a thousand jobs sending at once share a few statements per batch instead of about
 * five each: a renewal of all their leases, one read of their next rows (primary-key ranges after
 * each runner's cursor; rows left taken for the jobs that recover) and one UPDATE of the jobs that
 * records each window's range of rows (not a write per row: see BulkRowRepository.claimWindow); then
 * one UPDATE per outcome and one of the counters. A request the batch cannot place (nothing after its
 * cursor, rows held or put back, a pause) is written alone by the one-job statements.
 */
@Injectable()
export class WindowBatches {
  private readonly claims: Coalescer<ClaimRequest, ClaimAnswer>;
  private readonly settlements: Coalescer<SettleRequest, SettleAnswer>;
  private readonly probe: WindowTxProbe;

  constructor(
    private readonly db: UnitOfWork,
    private readonly leases: BulkJobLeases,
    private readonly rows: BulkRowRepository,
    settings: BulkSettings,
  ) {
    this.probe = new WindowTxProbe(settings.testHooks);
    // Inside an open unit (a pause's event unit) a window is written in it, alone.
    const common = { ...db.coalescing, maxWeight: MAX_BATCH_ROWS };
    this.claims = new Coalescer({
      ...common,
      batch: (r) => this.claimMany(r),
      one: (r) => this.claimOne(r),
      weight: (r) => r.limit,
    });
    this.settlements = new Coalescer({
      ...common,
      batch: (r) => this.settleMany(r),
      one: (r) => this.settleOne(r),
      weight: (r) => r.outcomes.length + r.held.length + r.unsent.length,
    });
  }

  /** Windows' starts and ends written so far, and in how many batches (benchmarks). */
  get stats(): { claims: { requests: number; batches: number }; settlements: { requests: number; batches: number } } {
    return { claims: this.claims.stats, settlements: this.settlements.stats };
  }

  claim(req: ClaimRequest): Promise<ClaimAnswer> {
    return this.claims.submit(req);
  }

  settle(req: SettleRequest): Promise<SettleAnswer> {
    return this.settlements.submit(req);
  }

  private claimOne(req: ClaimRequest): Promise<ClaimAnswer> {
    const { leases, rows } = this;
    return this.db.steps(
      function* (): Steps<ClaimAnswer> {
        if (!(yield* leases.renewForWindow(req.jobId, req.owner, req.leaseUntil))) return null;
        // Rows left taken first: their outcome must be settled before anything new goes out.
        const claimed = yield* rows.claimWindow(req.jobId, req.limit, req.recover, req.at);
        if (claimed.opened) yield* leases.openWindows([{ id: req.jobId, ...claimed.opened }], req.at);
        return { rows: claimed.rows, recovering: claimed.recovering };
      },
      { afterFirst: this.probe.hold(req.jobId) },
    );
  }

  /**
   * One unit for many windows (all of one owner: this replica's runners). Jobs whose lease was not
   * renewed answer null. For the jobs that recover: rows left `sending`, else the pending rows of the
   * window in flight when the job was taken; for the others (and those that found none): pending
   * rows after each runner's cursor, whose windows are then opened on their jobs by one UPDATE (the
   * renewal above locked the jobs, so no cancel slips between the read and the window it records).
   */
  private claimMany(reqs: ClaimRequest[]): Promise<BatchAnswer<ClaimAnswer>[]> {
    const owner = reqs[0].owner;
    if (reqs.some((r) => r.owner !== owner)) return Promise.resolve(reqs.map(() => LEFT_OUT));
    // The latest asked for: no runner believes its lease ends later than it does.
    const until = Math.max(...reqs.map((r) => r.leaseUntil));
    const at = Math.max(...reqs.map((r) => r.at));
    const ids = reqs.map((r) => r.jobId);
    return this.db.steps(
      function* (): Steps<BatchAnswer<ClaimAnswer>[]> {
        const renewed: StmtResult = yield leaseStatements.renewManyForWindow(ids, owner, until);
        let running = new Set(ids);
        if (renewed.affected !== ids.length)
          running = new Set(
            ((yield leaseStatements.runningOf(ids, owner)) as StmtResult).rows.map((r) => String(r.id)),
          );
        const live = reqs.filter((r) => running.has(r.jobId));
        const found = new Map<string, ClaimedRow[]>();
        const keep = (got: StmtResult, when: (x: Row) => number, taken: boolean) => {
          for (const x of got.rows) {
            const jobId = String(x.job_id);
            const row = toClaimedRow(x, jobId, when(x), taken);
            const rows = found.get(jobId);
            if (rows) rows.push(row);
            else found.set(jobId, [row]);
          }
        };
        const recovering = live.filter((r) => r.recover);
        if (recovering.length)
          keep(
            yield rowStatements.windowRowsOfJobs(
              recovering.map((r) => ({ jobId: r.jobId, limit: r.limit })),
              'sending',
            ),
            () => at,
            true,
          );
        const cut = recovering.filter((r) => !found.has(r.jobId));
        if (cut.length) keep(yield rowStatements.inFlight(cut.map((r) => r.jobId)), (x) => num(x.window_at), true);
        const recovered = new Set(found.keys());
        // The next rows after each runner's cursor, all jobs in one read of primary-key ranges.
        const ahead = live.filter((r) => !recovered.has(r.jobId));
        if (ahead.length)
          keep(
            yield rowStatements.pendingInRanges(ahead.map((r) => ({ jobId: r.jobId, after: r.after, limit: r.limit }))),
            () => at,
            false,
          );
        const opened: { id: string; from: number; to: number }[] = [];
        for (const [jobId, rows] of found) {
          rows.sort((a, b) => a.idx - b.idx);
          if (!recovered.has(jobId)) opened.push({ id: jobId, from: rows[0].idx, to: rows[rows.length - 1].idx });
        }
        if (opened.length) yield leaseStatements.openWindows(opened, at);
        // A job with nothing after its cursor (its end, or a run of invalid or earlier rows) is written alone: the one-job read looks at the whole job.
        return reqs.map((r) => {
          if (!running.has(r.jobId)) return null;
          const rows = found.get(r.jobId);
          return rows?.length ? { rows, recovering: recovered.has(r.jobId) } : LEFT_OUT;
        });
      },
      { afterFirst: this.probe.hold(ids[0]) },
    );
  }

  private settleOne(req: SettleRequest): Promise<SettleAnswer> {
    const { rows, leases } = this;
    return this.db.steps(function* (): Steps<SettleAnswer> {
      const { sent, failed } = yield* rows.settleWindow(req.jobId, req.outcomes, req.held, req.unsent);
      const paused = yield* leases.closeWindow(req.jobId, req.owner, sent, failed, req.pause, req.now);
      return { settled: sent + failed, paused };
    });
  }

  /**
   * Windows without held or unsent rows or a pause (the plain case), in one unit: one UPDATE per
   * outcome and one of the counters (which also closes the windows). A row is counted by whoever
   * moves it out of being taken: when the UPDATEs moved fewer rows than the windows settle (another
   * replica settled some first), the unit is undone and each window is written alone, which counts
   * exactly the rows it moved.
   */
  private settleMany(reqs: SettleRequest[]): Promise<BatchAnswer<SettleAnswer>[]> {
    const plain = reqs.filter((r) => !r.pause && !r.unsent.length && !r.held.length && r.outcomes.length);
    if (plain.length < 2) return Promise.resolve(reqs.map(() => LEFT_OUT));
    const batched = new Set(plain);
    const now = Math.max(...plain.map((r) => r.now));
    const owner = plain[0].owner;
    if (plain.some((r) => r.owner !== owner)) return Promise.resolve(reqs.map(() => LEFT_OUT));
    const { rows: repo } = this;
    return this.db.steps(function* (): Steps<BatchAnswer<SettleAnswer>[]> {
      const rows = plain.flatMap((r) => r.outcomes.map((o) => ({ ...o, jobId: r.jobId })));
      const moved = yield* repo.settleOutcomes(rows);
      if (moved.sent + moved.failed !== rows.length)
        throw new Error('rows of the batch were settled elsewhere meanwhile');
      const counts = plain.map((r) => ({
        id: r.jobId,
        sent: r.outcomes.filter((o) => o.status === 'sent').length,
        failed: r.outcomes.filter((o) => o.status === 'failed').length,
      }));
      yield leaseStatements.countSettledOfJobs(counts, owner, now);
      return reqs.map((r) => (batched.has(r) ? { settled: r.outcomes.length, paused: false } : LEFT_OUT));
    });
  }
}
