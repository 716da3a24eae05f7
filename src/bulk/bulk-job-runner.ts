import { Logger } from '@nestjs/common';
import type { Clock } from '../common/clock';
import { isTransientDbError } from '../database/db-errors';
import type { MetricsService } from '../metrics/metrics.service';
import type { SendPolicy } from '../messaging/policy/send-policy';
import type { MessageValidator } from '../messaging/validation/message-validator';
import type { ValidationContext } from '../messaging/validation/validation-context';
import type { WindowItem, WindowSender } from '../messaging/window-sender';
import type { BulkSettings } from './bulk-settings';
import type { BulkJobLeasesRepository, Turn } from './bulk-job-leases.repository';
import type { BulkRowRepository } from './bulk-row.repository';
import { checkBulkRow } from './row-check';
import { ClaimedRow, SettledRow, takenOf, TakenRow } from './window-rows';
import { pauseAfter, planRow, WindowPause } from './row-outcomes';
import { JobLease } from './job-lease';
import { SendWindow, WindowPacer } from './send-window';
import type { ClaimAnswer, WindowBatches } from './window-batches';
import type { BulkJobEvents } from './bulk-job-events';
import { judgeWindow, type WindowRows } from './window-policy';

/** What every runner works with: Nest injects it into BulkJobRunnerFactory, which hands it to each runner. */
export interface RunnerDeps {
  clock: Clock;
  settings: BulkSettings;
  validator: Pick<MessageValidator, 'createContext' | 'validate'>;
  windows: WindowSender;
  metrics: MetricsService;
  leases: BulkJobLeasesRepository;
  rows: BulkRowRepository;
  /** Window starts and ends, written together with other jobs' (WindowBatches). */
  batches: WindowBatches;
  /** bulk_job.paused / bulk_job.completed, in the unit of the status change. */
  events: BulkJobEvents;
  /** Consent and sending hours: asked once per window for all its rows. */
  policy: SendPolicy;
}

type Stop = 'done' | 'stopped' | 'lost';

/** The job a runner sends, as the dispatcher leased it. */
export type RunnerJob = Pick<Turn, 'id' | 'accountId' | 'mps' | 'instantReceipts'>;

/** How long a runner trusts the lookups its rows were checked against before reading them again. */
export const BASIS_TTL_MS = 10_000;

/** The lease ran out (this replica stalled past its expiry; another may hold it): stop before sending anything more. */
class LeaseLost extends Error {}

/**
 * Sends one leased job's rows, paced by a sliding window, until the job completes, is paused or
 * cancelled, or the lease is lost. Per batch (at most messagesPerSecond rows): one transaction renews
 * the lease (only while the job is to run) and records the window (its rows' range and time, from
 * which their message ids derive) on the job before any provider call; the rows are sent through the
 * pipeline, the lease kept through the window (JobLease); one transaction records the outcomes and
 * counters and closes the window. A row taken before and not settled (crash, lost lease: the window recorded on the job; a paid message its
 * window did not attempt: held `sending`) is sent again with the SAME id, which the pipeline settles
 * through its message log and the provider's lookup instead of sending (or charging) twice.
 */
export class BulkJobRunner {
  private readonly log = new Logger(BulkJobRunner.name);
  private readonly window = new SendWindow();
  /** What the rows' validation relies on (see BASIS_TTL_MS), and since when. */
  private ctx: ValidationContext;
  private ctxSince: number;
  private readonly pacer: WindowPacer;
  private stopRequested = false;
  /**
   * Rows taken before are looked for when the lease is taken (a crash or lost lease left a window in
   * flight) and after a window that held some `sending` (paid messages it did not attempt), until a
   * window finds none.
   */
  private recovered = false;
  /**
   * The last row index this runner claimed: its next pending rows are read from there on (a range of
   * the primary key, not the job's rows from the start). Rows it puts back to `pending` move it back.
   */
  private cursor = -1;
  private readonly lease: JobLease;
  /** The earliest time of rows held for the sending hours (`pending` behind the cursor): then the job resumes. */
  private quietUntil: number | null = null;

  constructor(
    private readonly d: RunnerDeps,
    readonly job: RunnerJob,
    /** No row of the job was settled in the second before it was leased: no send time to pace after. */
    private readonly quiet = false,
  ) {
    this.ctx = d.validator.createContext(this.job.accountId);
    this.ctxSince = d.clock.now();
    // A call starts only with 1.5 provider timeouts of the lease left (JobLease renews it when short).
    const { instanceId: owner, dispatchLeaseMs: leaseMs, providerTimeoutMs } = d.settings;
    this.lease = new JobLease(d.leases, d.clock, { jobId: job.id, owner, leaseMs, marginMs: 1.5 * providerTimeoutMs });
    // A window's calls go out side by side (BULK_SEND_LANES, at most the job's rate), within the rate every second.
    const checks = { stopping: () => this.stopRequested, keepLease: () => this.lease.keep() };
    this.pacer = new WindowPacer(d.clock, this.window, job.mps, checks, { lanes: d.settings.sendLanes });
  }

  stop(): void {
    this.stopRequested = true;
  }

  async run(): Promise<Stop> {
    try {
      await this.loadWindow();
      for (;;) {
        if (this.stopRequested) {
          await this.release('stopped');
          this.log.log({ jobId: this.job.id }, 'bulk job stopped for shutdown: outcomes recorded, lease released');
          return 'stopped';
        }
        const before = this.cursor;
        const batch = await this.startBatch();
        // Paused, cancelled, or the lease was taken over: let go of it if it is still ours.
        if (batch === null) return this.release('stopped');
        // Nothing after the cursor (a claim then reads from the job's start): only rows held for the sending hours are left.
        if (this.quietUntil !== null && batch.rows.every((r) => r.idx <= before)) return this.park(batch.rows);
        if (!batch.rows.length) return (await this.complete()) ? 'done' : this.release('stopped');
        const { outcomes, held, unsent, deferred, pause } = await this.sendRows(batch.rows);
        await this.finishBatch(outcomes, held, unsent, pause, deferred);
        if (pause) return 'stopped';
      }
    } catch (err) {
      if (err instanceof LeaseLost) {
        this.log.warn({ jobId: this.job.id }, 'bulk job lease ran out (another replica may hold it); stopped');
        return 'lost';
      }
      if (isTransientDbError(err)) {
        // The server ended our transaction (we were paused past DB_IDLE_TRANSACTION_TIMEOUT_S, so
        // another replica may own the job now) or a lock stayed held too long. The server rolled
        // that transaction back; stop without another statement. The job goes on under whoever
        // leases it next, which settles the rows this window took from the message log (never sent twice).
        this.log.warn(
          { jobId: this.job.id, err: String(err) },
          'bulk job runner stood down: its database transaction was ended or blocked',
        );
        return 'lost';
      }
      this.log.error({ err, jobId: this.job.id }, 'bulk job runner failed; the lease will expire and the job resume');
      return 'lost';
    }
  }

  /**
   * Sends of the last second (another runner's, before a takeover or a pause) fill the pacing window.
   * A job none of whose rows was settled in that second (a fresh job, or one resumed or taken over
   * later) has none, and is not read for them: with no index on the send time that read goes through
   * all of the job's rows.
   */
  private async loadWindow(): Promise<void> {
    if (this.quiet) return;
    for (const at of await this.d.rows.recentSends(this.job.id, this.d.clock.now() - 1000)) this.window.record(at);
  }

  /** null: the lease was lost, or the job is no longer running (paused, cancelled...). */
  private async startBatch(): Promise<ClaimAnswer> {
    const at = this.d.clock.now();
    // The runner's renewal, in the window's claim: its calls start only while enough of it is left.
    const leaseUntil = this.lease.renewedUntil(at);
    const recover = !this.recovered;
    this.recovered = true;
    const { id: jobId, mps: limit } = this.job;
    const owner = this.d.settings.instanceId;
    const claimed = await this.d.batches.claim({ jobId, limit, recover, after: this.cursor, owner, leaseUntil, at });
    // Rows taken before were found: the next window looks for more.
    if (claimed?.recovering) this.recovered = false;
    for (const row of claimed?.rows ?? []) this.cursor = Math.max(this.cursor, row.idx);
    return claimed;
  }

  /**
   * One window's rows through WindowSender (paid and recorded in one unit), each provider call paced
   * by the sliding window: it starts only when fewer than `mps` sends completed in the last second,
   * and is counted when it returns, so no one-second window exceeds the ceiling. Outcomes map to rows
   * by kind (row-outcomes.ts): sent and failed settle the row; a message not attempted goes back to
   * `pending` when unpaid (and no balance pauses the job) or is held `sending` when paid (the next
   * batch sends it from the log without charging again; a rate limit pauses the job).
   */
  private async sendRows(rows: ClaimedRow[]): Promise<WindowRows> {
    const outcomes: SettledRow[] = [];
    const held: TakenRow[] = [];
    const unsent: TakenRow[] = [];
    const items: WindowItem[] = [];
    const taken: ClaimedRow[] = [];
    for (const row of rows) {
      const v = await checkBulkRow(this.d.validator, this.basis(), () => JSON.parse(row.payload));
      if (!v.ok) {
        outcomes.push({ ...takenOf(row), status: 'failed', code: v.code, message: v.message, at: this.d.clock.now() });
        continue;
      }
      const receipts = this.job.instantReceipts ? { instantReceipts: true } : {};
      const origin = { bulkJobId: this.job.id, rowIndex: row.idx, messageId: row.messageId, ...receipts };
      items.push({ msg: v.message, origin, fresh: row.fresh });
      taken.push(row);
    }
    const j = await judgeWindow(this.d.policy, this.job.accountId, items, taken, this.d.clock.now());
    outcomes.push(...j.refused);
    if (j.quietUntil !== null) this.quietUntil = Math.min(this.quietUntil ?? Infinity, j.quietUntil);
    if (!j.items.length) return { outcomes, held, unsent, deferred: j.deferred, pause: null };
    const results = await this.d.windows.sendWindow(this.job.accountId, j.items, this.pacer);
    if (results.some((r) => r.kind === 'not_attempted' && r.reason === 'lease_lost')) throw new LeaseLost();
    const at = this.d.clock.now();
    results.forEach((r, i) => {
      const plan = planRow(r);
      if (plan.kind === 'settle') outcomes.push({ ...plan.outcome, ...takenOf(j.taken[i]), at });
      else if (plan.kind === 'pending') unsent.push(takenOf(j.taken[i]));
      else {
        // Held `sending`: the next batch takes such rows up first.
        held.push(takenOf(j.taken[i]));
        this.recovered = false;
      }
    });
    const pause = pauseAfter(results, at, this.d.settings.rateLimitBackoffMs);
    return { outcomes, held, unsent, deferred: j.deferred, pause };
  }

  /**
   * The validation context of this window: a fresh one once the last is BASIS_TTL_MS old, so what a
   * row relied on when it was validated and may have changed since (the sender's approval, the
   * template's status and content, the session, a URL host's addresses) is read again at most that
   * often while the job sends, never once per row and never only once for a job that sends for hours.
   */
  private basis(): ValidationContext {
    const now = this.d.clock.now();
    if (now - this.ctxSince >= BASIS_TTL_MS) {
      this.ctx = this.d.validator.createContext(this.job.accountId);
      this.ctxSince = now;
    }
    return this.ctx;
  }

  /**
   * Outcomes, held rows and counters in one transaction that closes the window; unsent (unpaid)
   * rows are plain `pending` again under the ids they were taken with.
   * A row is counted by whoever moves it out of being taken (the UPDATEs' affected counts), exactly
   * once, so a stalled replica whose rows were settled by the next lease holder counts nothing, and
   * rows it settles first are not counted again.
   */
  private async finishBatch(
    outcomes: SettledRow[],
    held: TakenRow[],
    unsent: TakenRow[],
    pause: WindowPause | null,
    deferred: TakenRow[] = [],
  ): Promise<void> {
    for (const u of unsent) this.cursor = Math.min(this.cursor, u.idx - 1);
    const req = {
      jobId: this.job.id,
      owner: this.d.settings.instanceId,
      outcomes,
      held,
      // Held for the sending hours: `pending` again, behind the cursor (the job comes back for them).
      unsent: deferred.length ? [...unsent, ...deferred] : unsent,
      pause,
      now: this.d.clock.now(),
    };
    // A pause is an event (its own unit around the settlement); a plain window goes with other jobs' windows.
    const settle = () => this.d.batches.settle(req);
    const { settled } = pause
      ? await this.d.events.around(this.job.id, 'bulk_job.paused', settle, (r) => r.paused)
      : await settle();
    this.d.metrics.recordBulkDispatched(this.job.accountId, settled);
  }

  private async complete(): Promise<boolean> {
    const jobId = this.job.id;
    return this.d.events.around(
      jobId,
      'bulk_job.completed',
      () => this.d.leases.complete(jobId, this.d.settings.instanceId, this.d.clock.now()),
      (moved) => moved,
    );
  }

  /** Only held rows are left (`rows`, taken again): put back, and the job is not leased again before quietUntil. */
  private async park(rows: ClaimedRow[]): Promise<Stop> {
    const until = this.quietUntil as number;
    if (rows.length) await this.finishBatch([], [], [], null, rows.map(takenOf));
    await this.d.leases.park(this.job.id, this.d.settings.instanceId, until);
    this.log.log({ jobId: this.job.id, quietUntil: new Date(until).toISOString() }, 'bulk job waits for sending hours');
    return 'stopped';
  }

  private async release(result: Stop): Promise<Stop> {
    await this.d.leases.release(this.job.id, this.d.settings.instanceId);
    return result;
  }
}
