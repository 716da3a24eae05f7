import { Injectable } from '@nestjs/common';
import { Coalescer, LEFT_OUT, BatchAnswer } from '../common/coalescer';
import { newId } from '../common/ids';
import { UnitOfWork } from '../database/unit-of-work';
import type { Row, StmtResult, Steps } from '../database/sql';
import { BulkJobLeases, leaseStatements, WindowPauseMove } from './bulk-job-leases.repository';
import { BulkRowRepository, ClaimedRow, rowStatements, SettledRow, toClaimedRow } from './bulk-row.repository';
import type { JobRow } from './job-rows-sql';
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
}
/** null: the lease was lost or the job is no longer to run. `remaining`: rows were found (some may have raced with a cancel). */
export type ClaimAnswer = { rows: ClaimedRow[]; remaining: boolean } | null;

/** A window's end: its rows settled, unsent rows back to `pending`, the job's counters, its pause if any. */
export interface SettleRequest {
  jobId: string;
  owner: string;
  outcomes: SettledRow[];
  unsent: number[];
  pause: WindowPauseMove | null;
  now: number;
}
export interface SettleAnswer {
  settled: number;
  paused: boolean;
}

/** Rows per batch: a few statements of at most this many rows (well under every dialect's parameter limit). */
const MAX_BATCH_ROWS = 2000;
/** The id a claimed row without one is sent under. */
const mintMessageId = (): string => newId('msg');

/**
 * The dispatch windows of many jobs written together. Each job's runner asks for its window's start
 * and end as before; requests that arrive while a batch is being written go in the next one
 * (Coalescer), so a thousand jobs sending at once share a few statements per batch instead of about
 * five each: a renewal of all their leases, one read of their next rows (primary-key ranges after
 * each runner's cursor; rows left `sending` for the jobs that recover) and one claim; then one UPDATE
 * per outcome and one of the counters. A request the batch cannot place (nothing after its cursor,
 * rows put back, a pause) is written alone by the one-job statements.
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
    this.claims = new Coalescer({ ...common, batch: (r) => this.claimMany(r), one: (r) => this.claimOne(r), weight: (r) => r.limit });
    this.settlements = new Coalescer({ ...common, batch: (r) => this.settleMany(r), one: (r) => this.settleOne(r), weight: (r) => r.outcomes.length + r.unsent.length });
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
    return this.db.steps(function* (): Steps<ClaimAnswer> {
      if (!(yield* leases.renewForWindow(req.jobId, req.owner, req.leaseUntil))) return null;
      // Rows left `sending` first: their outcome must be settled before anything new goes out.
      const claimed = yield* rows.claimWindow(req.jobId, req.limit, req.recover, mintMessageId);
      return { rows: claimed.rows, remaining: claimed.found > 0 };
    }, { afterFirst: this.probe.hold(req.jobId) });
  }

  /**
   * One unit for many windows (all of one owner: this replica's runners). Jobs whose lease was not
   * renewed answer null; rows left `sending` are read for the jobs that recover, pending rows for the
   * others (and for those that found none); all are claimed by one UPDATE. If it claimed fewer rows
   * than were read (a cancel took some meanwhile), the unit is undone and each window is written alone.
   */
  private claimMany(reqs: ClaimRequest[]): Promise<BatchAnswer<ClaimAnswer>[]> {
    const owner = reqs[0].owner;
    if (reqs.some((r) => r.owner !== owner)) return Promise.resolve(reqs.map(() => LEFT_OUT));
    // The latest asked for: no runner believes its lease ends later than it does.
    const until = Math.max(...reqs.map((r) => r.leaseUntil));
    const ids = reqs.map((r) => r.jobId);
    const syntax = this.db.capabilities.updateFrom;
    return this.db.steps(function* (): Steps<BatchAnswer<ClaimAnswer>[]> {
      const renewed: StmtResult = yield leaseStatements.renewManyForWindow(ids, owner, until);
      let running = new Set(ids);
      if (renewed.affected !== ids.length) running = new Set(((yield leaseStatements.runningOf(ids, owner)) as StmtResult).rows.map((r) => String(r.id)));
      const live = reqs.filter((r) => running.has(r.jobId));
      const found = new Map<string, Row[]>();
      const keep = (got: StmtResult) => {
        for (const x of got.rows) {
          const rows = found.get(String(x.job_id));
          if (rows) rows.push(x);
          else found.set(String(x.job_id), [x]);
        }
      };
      const recovering = live.filter((r) => r.recover);
      if (recovering.length) keep(yield rowStatements.windowRowsOfJobs(recovering.map((r) => ({ jobId: r.jobId, limit: r.limit })), 'sending'));
      // The next rows after each runner's cursor, all jobs in one read of primary-key ranges.
      const ahead = live.filter((r) => !found.has(r.jobId));
      if (ahead.length) keep(yield rowStatements.pendingInRanges(ahead.map((r) => ({ jobId: r.jobId, after: r.after, limit: r.limit }))));
      const claimed: JobRow<{ messageId: string }>[] = [];
      const answers = new Map<string, ClaimedRow[]>();
      for (const r of live) {
        const mine = (found.get(r.jobId) ?? []).map((x) => toClaimedRow(x, r.jobId, mintMessageId)).sort((a, b) => a.idx - b.idx);
        answers.set(r.jobId, mine);
        for (const c of mine) claimed.push({ jobId: r.jobId, idx: c.idx, messageId: c.messageId });
      }
      if (claimed.length) {
        const took: StmtResult = yield rowStatements.claimOfJobs(syntax, claimed);
        if (took.affected !== claimed.length) throw new Error('a cancel took rows of the batch meanwhile');
      }
      // A job with nothing after its cursor (its end, or a run of invalid or earlier rows) is written alone: the one-job read looks at the whole job.
      return reqs.map((r) => {
        if (!running.has(r.jobId)) return null;
        const rows = answers.get(r.jobId);
        return rows?.length ? { rows, remaining: true } : LEFT_OUT;
      });
    }, { afterFirst: this.probe.hold(ids[0]) });
  }

  private settleOne(req: SettleRequest): Promise<SettleAnswer> {
    const { rows, leases } = this;
    return this.db.steps(function* (): Steps<SettleAnswer> {
      const { sent, failed } = yield* rows.settleWindow(req.jobId, req.outcomes, req.unsent);
      const paused = yield* leases.closeWindow(req.jobId, req.owner, sent, failed, req.pause, req.now);
      return { settled: sent + failed, paused };
    });
  }

  /**
   * Windows without unsent rows or a pause (the plain case), in one unit: one UPDATE per outcome and
   * one of the counters. A row is counted by whoever moves it out of `sending`: when the UPDATEs moved
   * fewer rows than the windows settle (another replica settled some first), the unit is undone and
   * each window is written alone, which counts exactly the rows it moved.
   */
  private settleMany(reqs: SettleRequest[]): Promise<BatchAnswer<SettleAnswer>[]> {
    const plain = reqs.filter((r) => !r.pause && !r.unsent.length && r.outcomes.length);
    if (plain.length < 2) return Promise.resolve(reqs.map(() => LEFT_OUT));
    const batched = new Set(plain);
    const now = Math.max(...plain.map((r) => r.now));
    const syntax = this.db.capabilities.updateFrom;
    return this.db.steps(function* (): Steps<BatchAnswer<SettleAnswer>[]> {
      for (const status of ['sent', 'failed'] as const) {
        const rows = plain.flatMap((r) => r.outcomes.filter((o) => o.status === status).map((o) => ({ ...o, jobId: r.jobId })));
        if (!rows.length) continue;
        const moved: StmtResult = yield rowStatements.settleOfJobs(syntax, status, rows);
        if (moved.affected !== rows.length) throw new Error('rows of the batch were settled elsewhere meanwhile');
      }
      const counts = plain.map((r) => ({ id: r.jobId, sent: r.outcomes.filter((o) => o.status === 'sent').length, failed: r.outcomes.filter((o) => o.status === 'failed').length }));
      yield leaseStatements.countSettledOfJobs(counts, now);
      return reqs.map((r) => (batched.has(r) ? { settled: r.outcomes.length, paused: false } : LEFT_OUT));
    });
  }
}
