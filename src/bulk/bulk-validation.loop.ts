import { setImmediate as nextTurn } from 'node:timers/promises';
import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { LedgerService } from '../accounts/ledger.service';
import { Clock } from '../common/clock';
import { MessageValidator } from '../messaging/validation/message-validator';
import { UnitOfWork } from '../database/unit-of-work';
import { SinglePeriodicJob } from '../common/single-periodic-job';
import { ShutdownCoordinator } from '../common/shutdown/shutdown-coordinator';
import { BulkSettings } from './bulk-settings';
import { canPayChannel } from './next-row-payment';
import { MetricsService } from '../metrics/metrics.service';
import { checkBulkRow } from './row-check';
import type { BulkJobErrorCode } from './bulk-error-codes';
import { BulkJobEvents } from './bulk-job-events';
import { BulkJobValidationRepository, ChunkProgress, ValidationLease } from './bulk-job-validation.repository';
import type { BulkRowRecord } from './bulk-records';
import { BulkRowRepository, InvalidRow } from './bulk-row.repository';

/** Jobs at most in one group: one read, one progress write, one queue move. */
const GROUP_JOBS = 16;
/**
 * Rows of a group's jobs together at most (or one chunk, if larger). A group pays a few round trips
 * whatever its size, and on a busy database those waits set the pace across many small jobs: groups of
 * 16 jobs of 300 rows instead of 6 (one 2,000-row chunk) raised the best one-second rate of the
 * 1,000-tenant benchmark from 38k-45k to 48k-53k rows/s (docs/benchmarks.md).
 */
const GROUP_ROWS = 5000;

/** What one pass shares between its workers: leased jobs not yet started, and whether any are left to lease. */
interface Pass {
  queue: ValidationLease[];
  exhausted: boolean;
  refilling: Promise<void> | null;
  done: number;
}

/** A group's job: the rows this pass read and checked, and the invalid ones among them. */
interface Checked {
  job: ValidationLease;
  rows: BulkRowRecord[];
  invalid: InvalidRow[];
  /** Valid rows whose message is marketing (their `purpose` is written with the chunk's progress). */
  marketing: number[];
}

/**
 * Background validation. A pass leases `validating` jobs (oldest first, many per unit) and validates
 * them with BULK_VALIDATION_CONCURRENCY workers, leasing more as the queue runs dry, until none is
 * left; so jobs submitted at the same moment by many accounts are validated side by side, and a large
 * job does not hold up the small ones. Small jobs (at most BULK_VALIDATION_CHUNK rows each) go in
 * groups (GROUP_JOBS, GROUP_ROWS): their rows are read in one statement, their progress written in
 * one, and the valid ones queued in one; a larger job is validated alone, chunk by chunk
 * (validatedCount rises per chunk). Checking is CPU work: the event loop gets a turn between a group's
 * jobs and between a large job's chunks. Every row goes through the messaging validator; a job ends
 * `rejected` (VALIDATION_FAILED / INSUFFICIENT_BALANCE) or `queued`. Nothing is sent before that.
 */
@Injectable()
export class BulkValidationLoop implements OnApplicationBootstrap {
  private readonly loop = new SinglePeriodicJob('bulk-validation', () => this.runOnce());

  constructor(
    private readonly db: UnitOfWork,
    private readonly clock: Clock,
    private readonly settings: BulkSettings,
    private readonly validator: MessageValidator,
    private readonly ledger: LedgerService,
    private readonly scheduler: SchedulerRegistry,
    private readonly metrics: MetricsService,
    private readonly jobs: BulkJobValidationRepository,
    private readonly rows: BulkRowRepository,
    shutdown: ShutdownCoordinator,
    private readonly events: BulkJobEvents,
  ) {
    // Shutdown: the chunks being checked are saved, then the jobs' leases are let go (validatedCount kept).
    shutdown.register({
      name: 'bulk-validation',
      stopClaiming: () => this.loop.halt(),
      drain: () => this.loop.idle(),
      releaseLeases: () => this.jobs.release(this.settings.instanceId),
    });
  }

  onApplicationBootstrap(): void {
    if (this.settings.schedulersEnabled) this.loop.start(this.scheduler, this.settings.validationTickMs);
  }

  /** Validates every job it can lease until none is left; returns how many it finished. */
  async runOnce(): Promise<number> {
    const pass: Pass = { queue: [], exhausted: false, refilling: null, done: 0 };
    const worker = async () => {
      for (let group = await this.next(pass); group; group = await this.next(pass)) {
        // (Awaited first, then added: `done += await ...` would read `done` before the await and lose the other workers' counts.)
        const finished =
          group.length === 1 && this.left(group[0]) > this.settings.validationChunk
            ? Number(await this.validateJob(group[0]))
            : await this.validateGroup(group);
        pass.done += finished;
      }
    };
    await Promise.all(Array.from({ length: this.settings.validationConcurrency }, worker));
    return pass.done;
  }

  private left(job: ValidationLease): number {
    return Math.max(0, job.total - job.validatedCount);
  }

  /** The next work of the pass: one large job, or small jobs whose rows together fit a group. */
  private async next(pass: Pass): Promise<ValidationLease[] | null> {
    for (;;) {
      if (this.loop.halted) return null;
      const first = pass.queue.shift();
      if (first) {
        const group = [first];
        let rows = this.left(first);
        if (rows > this.settings.validationChunk) return group;
        // Small jobs only (a larger one is validated alone, chunk by chunk), up to the group's rows.
        const budget = Math.max(GROUP_ROWS, this.settings.validationChunk);
        const fits = (job: ValidationLease) =>
          this.left(job) <= this.settings.validationChunk && rows + this.left(job) <= budget;
        while (pass.queue.length && group.length < GROUP_JOBS && fits(pass.queue[0])) {
          const job = pass.queue.shift() as ValidationLease;
          rows += this.left(job);
          group.push(job);
        }
        return group;
      }
      if (pass.exhausted) return null;
      pass.refilling ??= this.refill(pass).finally(() => (pass.refilling = null));
      await pass.refilling;
    }
  }

  private async refill(pass: Pass): Promise<void> {
    const now = this.clock.now();
    const me = this.settings.instanceId;
    const leased = await this.jobs.lease(
      me,
      now + this.settings.leaseMs,
      now,
      this.settings.validationConcurrency * GROUP_JOBS,
    );
    if (!leased.length) pass.exhausted = true;
    // Another replica's expired lease: it stopped validating that job part-way.
    const takenOver = leased.filter((j) => j.previousOwner !== null && j.previousOwner !== me).length;
    if (takenOver) this.metrics.recordLeaseTakeover('bulk_validation', takenOver);
    pass.queue.push(...leased);
  }

  /** Small jobs together: one read, each job's rows checked, one unit of progress, then the conclusions. */
  private async validateGroup(group: ValidationLease[]): Promise<number> {
    const spans = group
      .filter((j) => this.left(j) > 0)
      .map((j) => ({ jobId: j.id, from: j.validatedCount, limit: this.left(j) }));
    const read = await this.rows.payloadsOfJobs(spans);
    const checked: Checked[] = [];
    for (const job of group) {
      const rows = read.get(job.id) ?? [];
      checked.push({ job, rows, ...(rows.length ? await this.check(job, rows) : { invalid: [], marketing: [] }) });
      await nextTurn();
    }
    const progress: ChunkProgress[] = checked
      .filter((c) => c.rows.length)
      .map((c) => ({
        id: c.job.id,
        next: c.rows[c.rows.length - 1].idx + 1,
        invalid: c.invalid.length,
        marks: [...this.rows.markInvalid(c.job.id, c.invalid), ...this.rows.markMarketing(c.job.id, c.marketing)],
      }));
    const now = this.clock.now();
    const kept = await this.db.steps(() =>
      this.jobs.saveProgress(progress, this.settings.instanceId, now + this.settings.leaseMs, now),
    );
    if (this.loop.halted) return 0; // shutdown: the next lease holder concludes them
    // Jobs with nothing left to read were validated by an earlier holder: still ours (leased), conclude them too.
    const ours = checked.filter((c) => !c.rows.length || kept.has(c.job.id));
    const payable = await Promise.all(ours.map((c) => this.payable(c)));
    const queue = ours.filter((_, i) => payable[i] === true).map((c) => c.job.id);
    const others = await Promise.all(
      ours.map((c, i) => (payable[i] === true ? false : this.conclude(c.job, payable[i] === 'invalid'))),
    );
    return (await this.queue(queue)) + others.filter(Boolean).length;
  }

  /** Jobs to `queued` in one UPDATE, one bulk_job.queued event per job that moved, in the same unit; returns how many moved. */
  private async queue(ids: string[]): Promise<number> {
    if (!ids.length) return 0;
    const now = this.clock.now();
    const me = this.settings.instanceId;
    const moved = await this.events.aroundEach(
      'bulk_job.queued',
      () => this.db.steps(() => this.jobs.queue(ids, me, now)),
      (queued) => queued,
    );
    return moved.length;
  }

  /** true: every row valid and the first payable; 'invalid': some row is invalid; false: the first row cannot be paid. */
  private async payable(c: Checked): Promise<boolean | 'invalid'> {
    if (c.job.invalidCount + c.invalid.length > 0) return 'invalid';
    // (The first row's channel is at hand when this pass read the job from row 0.)
    const channel = c.rows[0]?.idx === 0 ? c.rows[0].channel : await this.rows.firstChannel(c.job.id, 'pending');
    return canPayChannel(this.ledger, c.job.accountId, channel);
  }

  /** A large job alone, chunk by chunk. */
  private async validateJob(job: ValidationLease): Promise<boolean> {
    let from = job.validatedCount;
    let invalidSeen = job.invalidCount;
    while (from < job.total) {
      const rows = await this.rows.payloads(job.id, from, this.settings.validationChunk);
      if (!rows.length) break;
      const { invalid, marketing } = await this.check(job, rows);
      const next = rows[rows.length - 1].idx + 1;
      const now = this.clock.now();
      const progress: ChunkProgress = {
        id: job.id,
        next,
        invalid: invalid.length,
        marks: [...this.rows.markInvalid(job.id, invalid), ...this.rows.markMarketing(job.id, marketing)],
      };
      const kept = await this.db.steps(() =>
        this.jobs.saveProgress([progress], this.settings.instanceId, now + this.settings.leaseMs, now),
      );
      if (!kept.has(job.id)) return false; // cancelled or lease lost
      invalidSeen += invalid.length;
      if (this.loop.halted) return false; // shutdown: the next lease holder goes on from `next`
      from = next;
      // (On the embedded database every statement resolves without I/O: this is the only turn between chunks.)
      await nextTurn();
    }
    return this.conclude(job, invalidSeen > 0);
  }

  /** Each row through the validator: the invalid ones with their problem, and the valid ones that are marketing. */
  private async check(
    job: ValidationLease,
    rows: BulkRowRecord[],
  ): Promise<{ invalid: InvalidRow[]; marketing: number[] }> {
    const ctx = this.validator.createContext(job.accountId);
    const invalid: InvalidRow[] = [];
    const marketing: number[] = [];
    for (const row of rows) {
      const verdict = await checkBulkRow(this.validator, ctx, () => JSON.parse(row.payload));
      if (!verdict.ok) invalid.push({ idx: row.idx, code: verdict.code, message: verdict.message });
      else if (verdict.message.purpose === 'marketing') marketing.push(row.idx);
    }
    return { invalid, marketing };
  }

  private async conclude(job: ValidationLease, anyInvalid: boolean): Promise<boolean> {
    // (The first invalid row is looked up only when there is one: most jobs have none.)
    const first = anyInvalid ? await this.rows.firstInvalid(job.id) : null;
    if (first)
      return this.reject(
        job.id,
        'VALIDATION_FAILED',
        `messages[${first.idx}]: ${String(first.errorMessage)} (${String(first.errorCode)})`,
      );
    // No row is invalid: every row is pending.
    if (!(await canPayChannel(this.ledger, job.accountId, await this.rows.firstChannel(job.id, 'pending')))) {
      return this.reject(
        job.id,
        'INSUFFICIENT_BALANCE',
        'Free messages, plan quota and wallet balance cannot pay for one message',
      );
    }
    return (await this.queue([job.id])) === 1;
  }

  /** Nothing is sent: every row not invalid becomes `cancelled`, counters say so. */
  private async reject(jobId: string, code: BulkJobErrorCode, message: string): Promise<boolean> {
    const now = this.clock.now();
    const me = this.settings.instanceId;
    return this.events.around(
      jobId,
      'bulk_job.rejected',
      () => this.db.steps(() => this.jobs.reject(jobId, me, code, message, now)),
      (moved) => moved,
    );
  }
}
