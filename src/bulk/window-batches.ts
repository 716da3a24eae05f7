import { Injectable } from '@nestjs/common';
import { Coalescer, RetryWithout } from '../common/coalescer';
import { groupBy } from '../common/group-by';
import { UnitOfWork } from '../database/unit-of-work';
import type { Steps } from '../database/sql';
import { BulkJobWindowsRepository, WindowPauseMove } from './bulk-job-windows.repository';
import { WindowRowsRepository } from './window-rows.repository';
import type { ClaimedRow, SettledRow, TakenRow } from './window-rows';
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

/** Requests grouped by lease owner (one in practice: this replica's runners). */
const byOwner = <R extends { owner: string }>(reqs: R[]): Map<string, R[]> => groupBy(reqs, (r) => r.owner);

/** Settled rows of a batch of windows were moved by another replica meanwhile (the unit is undone). */
class MovedElsewhere extends Error {}

/**
 * The dispatch windows of many jobs written together. Each job's runner asks for its window's start
 * and end; requests that arrive while a batch is being written go in the next one (Coalescer), so a
 * thousand jobs sending at once share a few statements per batch instead of about five each, and a
 * job alone is a batch of one, written by the same statements.
 */
@Injectable()
export class WindowBatches {
  private readonly claims: Coalescer<ClaimRequest, ClaimAnswer>;
  private readonly settlements: Coalescer<SettleRequest, SettleAnswer>;
  private readonly probe: WindowTxProbe;

  constructor(
    private readonly db: UnitOfWork,
    private readonly jobs: BulkJobWindowsRepository,
    private readonly rows: WindowRowsRepository,
    settings: BulkSettings,
  ) {
    this.probe = new WindowTxProbe(settings.testHooks);
    // Inside an open unit (a pause's event unit) a window is written in it, alone.
    const common = { ...db.coalescing, maxWeight: MAX_BATCH_ROWS };
    this.claims = new Coalescer({ ...common, batch: (r) => this.claimWindows(r), weight: (r) => r.limit });
    this.settlements = new Coalescer({
      ...common,
      batch: (r) => this.settleWindows(r),
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

  /**
   * Windows' starts in one unit (the Coalescer's batch): a renewal of the jobs' leases (per owner),
   * which is the check that each job is still ours and to run (null otherwise); one read of their
   * next rows for all of them (WindowRowsRepository.claimWindows: rows taken before for those that
   * recover, else pending rows after each runner's cursor); one UPDATE that records the windows
   * opened on their jobs (not a write per row). The renewal locked the jobs, so no cancel slips
   * between the read and the window it records.
   */
  claimWindows(reqs: ClaimRequest[]): Promise<ClaimAnswer[]> {
    const { jobs, rows } = this;
    // The latest asked for: no runner believes its lease ends later than it does.
    const until = Math.max(...reqs.map((r) => r.leaseUntil));
    const at = Math.max(...reqs.map((r) => r.at));
    return this.db.steps(
      function* (): Steps<ClaimAnswer[]> {
        const running = new Set<string>();
        for (const [owner, of] of byOwner(reqs)) {
          const renewed = yield* jobs.renewForWindows(
            of.map((r) => r.jobId),
            owner,
            until,
          );
          renewed.forEach((id) => running.add(id));
        }
        const claims = yield* rows.claimWindows(
          reqs.filter((r) => running.has(r.jobId)),
          at,
        );
        yield* jobs.openWindows(
          [...claims].flatMap(([id, c]) => (c.opened ? [{ id, ...c.opened }] : [])),
          at,
        );
        return reqs.map((r) => {
          const c = claims.get(r.jobId);
          return c ? { rows: c.rows, recovering: c.recovering } : null;
        });
      },
      { afterFirst: this.probe.hold(reqs[0].jobId) },
    );
  }

  /**
   * Windows' ends in one unit (the Coalescer's batch): one UPDATE per kind of row outcome
   * (WindowRowsRepository.settleWindows), then one of the jobs' counters that closes the windows, and
   * each window's pause. A row is counted by whoever moves it out of being taken: when the outcomes
   * moved fewer rows than the windows settle (another replica settled some first), the unit is
   * undone and the batch written again without the windows that lost rows, each of which is then
   * written alone, where it counts exactly the rows it moved.
   */
  async settleWindows(reqs: SettleRequest[]): Promise<SettleAnswer[]> {
    try {
      return await this.settleTogether(reqs);
    } catch (err) {
      if (!(err instanceof MovedElsewhere)) throw err;
      const lost = await this.rows.lostWindows(reqs);
      throw new RetryWithout(
        reqs.flatMap((r, i) => (lost.has(r.jobId) ? [i] : [])),
        err.message,
      );
    }
  }

  private settleTogether(reqs: SettleRequest[]): Promise<SettleAnswer[]> {
    const { rows, jobs } = this;
    const now = Math.max(...reqs.map((r) => r.now));
    return this.db.steps(function* (): Steps<SettleAnswer[]> {
      const moved = yield* rows.settleWindows(reqs);
      const counts = reqs.map((r) => ({
        sent: r.outcomes.filter((o) => o.status === 'sent').length,
        failed: r.outcomes.filter((o) => o.status === 'failed').length,
      }));
      if (reqs.length === 1) counts[0] = moved;
      else if (moved.sent + moved.failed !== reqs.reduce((n, r) => n + r.outcomes.length, 0))
        throw new MovedElsewhere('rows of the batch were settled elsewhere meanwhile');
      const paused = new Set<string>();
      for (const [owner, of] of byOwner(reqs.map((r, i) => ({ ...r, ...counts[i], id: r.jobId })))) {
        const moved = yield* jobs.closeWindows(of, owner, now);
        moved.forEach((id) => paused.add(id));
      }
      return reqs.map((r, i) => ({ settled: counts[i].sent + counts[i].failed, paused: paused.has(r.jobId) }));
    });
  }
}
