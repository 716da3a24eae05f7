import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { LedgerService } from '../accounts/ledger.service';
import { Clock } from '../common/clock';
import { MessageValidator, ValidationContext } from '../messaging/validation/message-validator';
import { UnitOfWork } from '../database/unit-of-work';
import { SinglePeriodicJob } from '../common/single-periodic-job';
import { ShutdownCoordinator } from '../common/shutdown/shutdown-coordinator';
import { BulkSettings } from './bulk-settings';
import { canPayNextRow } from './next-row-payment';
import { MetricsService } from '../metrics/metrics.service';
import { checkBulkRow } from './row-check';
import type { BulkJobErrorCode } from './bulk-error-codes';
import { BulkJobLeases, ValidationLease } from './bulk-job-leases.repository';
import type { BulkRowRecord } from './bulk-records';
import { BulkRowRepository, InvalidRow } from './bulk-row.repository';

/** What one pass shares between its workers: leased jobs not yet started, and whether any are left to lease. */
interface Pass {
  queue: ValidationLease[];
  exhausted: boolean;
  refilling: Promise<void> | null;
  done: number;
}

/**
 * Background validation: a pass leases `validating` jobs (oldest first, several per statement) and
 * validates them with BULK_VALIDATION_CONCURRENCY workers, leasing more as the workers run dry, until
 * no job is left to lease; so many small jobs submitted at once are validated side by side instead of
 * a few per tick, and one large job does not hold up the others. Per job: every row through the
 * messaging validator in chunks (validatedCount rises per chunk), then `rejected`
 * (VALIDATION_FAILED / INSUFFICIENT_BALANCE) or `queued`. Nothing is sent before that.
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
    private readonly leases: BulkJobLeases,
    private readonly rows: BulkRowRepository,
    shutdown: ShutdownCoordinator,
  ) {
    // Shutdown: the chunks being checked are saved, then the jobs' leases are let go (validatedCount kept).
    shutdown.register({ name: 'bulk-validation', stopClaiming: () => this.loop.halt(), drain: () => this.loop.idle(), releaseLeases: () => this.leases.releaseValidation(this.settings.instanceId) });
  }

  onApplicationBootstrap(): void {
    if (this.settings.schedulersEnabled) this.loop.start(this.scheduler, this.settings.validationTickMs);
  }

  /** Validates every job it can lease until none is left; returns how many it finished. */
  async runOnce(): Promise<number> {
    const pass: Pass = { queue: [], exhausted: false, refilling: null, done: 0 };
    const worker = async () => {
      for (let job = await this.next(pass); job; job = await this.next(pass)) {
        pass.done += (await this.validateJob(job)) ? 1 : 0;
      }
    };
    await Promise.all(Array.from({ length: this.settings.validationConcurrency }, worker));
    return pass.done;
  }

  /** The next leased job of the pass; leases a batch (one refill at a time) when the queue is empty. */
  private async next(pass: Pass): Promise<ValidationLease | null> {
    for (;;) {
      if (this.loop.halted) return null;
      const job = pass.queue.shift();
      if (job) return job;
      if (pass.exhausted) return null;
      pass.refilling ??= this.refill(pass).finally(() => (pass.refilling = null));
      await pass.refilling;
    }
  }

  private async refill(pass: Pass): Promise<void> {
    const now = this.clock.now();
    const me = this.settings.instanceId;
    // Twice the workers: the next jobs are leased while the current ones run, and few wait on a lease.
    const leased = await this.leases.leaseForValidation(me, now + this.settings.leaseMs, now, 2 * this.settings.validationConcurrency);
    if (!leased.length) pass.exhausted = true;
    // Another replica's expired lease: it stopped validating that job part-way.
    const takenOver = leased.filter((j) => j.previousOwner !== null && j.previousOwner !== me).length;
    if (takenOver) this.metrics.recordLeaseTakeover('bulk_validation', takenOver);
    pass.queue.push(...leased);
  }

  private async validateJob(job: ValidationLease): Promise<boolean> {
    const ctx = this.validator.createContext(job.accountId);
    let from = job.validatedCount;
    let invalidSeen = job.invalidCount;
    while (from < job.total) {
      const rows = await this.rows.payloads(job.id, from, this.settings.validationChunk);
      if (!rows.length) break;
      const invalid = await this.check(ctx, rows);
      const next = rows[rows.length - 1].idx + 1;
      if (!(await this.saveChunk(job.id, next, invalid))) return false; // cancelled or lease lost
      invalidSeen += invalid.length;
      if (this.loop.halted) return false; // shutdown: the next lease holder goes on from `next`
      from = next;
      // On the embedded database every statement resolves without I/O: let timers, requests and signals in between chunks.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return this.conclude(job, invalidSeen > 0);
  }

  private async check(ctx: ValidationContext, rows: BulkRowRecord[]): Promise<InvalidRow[]> {
    const invalid: InvalidRow[] = [];
    for (const row of rows) {
      const verdict = await checkBulkRow(this.validator, ctx, () => JSON.parse(row.payload));
      if (!verdict.ok) invalid.push({ idx: row.idx, code: verdict.code, message: verdict.message });
    }
    return invalid;
  }

  private async saveChunk(jobId: string, next: number, invalid: InvalidRow[]): Promise<boolean> {
    const now = this.clock.now();
    const marks = this.rows.markInvalid(jobId, invalid);
    return this.db.steps(() => this.leases.saveValidationProgress(jobId, this.settings.instanceId, next, marks, invalid.length, now + this.settings.leaseMs, now));
  }

  private async conclude(job: ValidationLease, anyInvalid: boolean): Promise<boolean> {
    // (The first invalid row is looked up only when there is one: most jobs have none.)
    const first = anyInvalid ? await this.rows.firstInvalid(job.id) : null;
    if (first) return this.reject(job.id, 'VALIDATION_FAILED', `messages[${first.idx}]: ${String(first.errorMessage)} (${String(first.errorCode)})`);
    // No row is invalid: every row is pending.
    if (!(await canPayNextRow(this.rows, this.ledger, job.accountId, job.id, 'pending'))) {
      return this.reject(job.id, 'INSUFFICIENT_BALANCE', 'Free messages, plan quota and wallet balance cannot pay for one message');
    }
    return this.leases.queueValidated(job.id, this.settings.instanceId, this.clock.now());
  }

  /** Nothing is sent: every row not invalid becomes `cancelled`, counters say so. */
  private async reject(jobId: string, code: BulkJobErrorCode, message: string): Promise<boolean> {
    const now = this.clock.now();
    return this.db.steps(() => this.leases.rejectValidated(jobId, this.settings.instanceId, code, message, now));
  }
}
