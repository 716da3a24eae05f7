import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Clock } from '../common/clock';
import { SinglePeriodicJob } from '../common/single-periodic-job';
import { ShutdownCoordinator } from '../common/shutdown/shutdown-coordinator';
import { MessageLogRepository } from '../messaging/message-log.repository';
import { wasSent } from '../messaging/outcome-recorder';
import { NotSent, SendPipeline } from '../messaging/send-pipeline';
import { UnitOfWork } from '../database/unit-of-work';
import { BulkSettings } from './bulk-settings';
import { MetricsService } from '../metrics/metrics.service';
import { BulkJobRepository } from './bulk-job.repository';
import { BulkJobLeasesRepository } from './bulk-job-leases.repository';
import { WindowRowsRepository } from './window-rows.repository';
import { ClaimedRow, SettledRow, takenOf } from './window-rows';
import type { AccountId } from '../common/account-id';

const CANCELLED: NotSent = { code: 'CANCELLED', message: 'The job was cancelled before this message was sent' };

/**
 * At start-up and then every BULK_REAPER_TICK_MS (only when SCHEDULERS_ENABLED):
 * - jobs left `accepting` (process killed mid-upload, client gone) whose intake lease expired become
 *   `rejected` / INTAKE_INCOMPLETE and lose their rows;
 * - cancelled jobs whose last window was cut off (crash or lost lease, then cancel) or left paid rows
 *   it did not attempt (a provider error, a rate limit, shutdown) can still have rows taken: held
 *   `sending`, or `pending` in the window the job records as in flight (the cancel left them), or
 *   put back to `pending`, unpaid, after the cancel, that no runner will touch again: with no
 *   live lease on the job, each is settled from the message log, nothing is sent: sent -> sent;
 *   failed -> failed; paid but never handed to the provider -> `cancelled` (its message failed
 *   CANCELLED and refunded); handed off -> as the pipeline settles unknown outcomes; never paid ->
 *   `cancelled`; pending -> `cancelled`.
 */
@Injectable()
export class BulkReaper implements OnApplicationBootstrap {
  private readonly logger = new Logger(BulkReaper.name);
  /** Lease owner of this replica's reaper: never the dispatcher's id, so neither takes or frees the other's lease. */
  private readonly owner: string;
  private readonly loop = new SinglePeriodicJob('bulk-reaper', async () => {
    await this.reap();
    await this.settleOrphans();
  });

  constructor(
    private readonly db: UnitOfWork,
    private readonly clock: Clock,
    private readonly settings: BulkSettings,
    private readonly scheduler: SchedulerRegistry,
    private readonly log: MessageLogRepository,
    private readonly pipeline: SendPipeline,
    private readonly metrics: MetricsService,
    private readonly jobs: BulkJobRepository,
    private readonly leases: BulkJobLeasesRepository,
    private readonly rows: WindowRowsRepository,
    shutdown: ShutdownCoordinator,
  ) {
    this.owner = `${settings.instanceId.slice(0, 34)}:reap`;
    // (A settling pass lets go of its job's lease when it ends; the sweep covers one that failed to.)
    shutdown.register({
      name: 'bulk-reaper',
      stopClaiming: () => this.loop.halt(),
      drain: () => this.loop.idle(),
      releaseLeases: () => this.releaseLeases(),
    });
  }

  private async releaseLeases(): Promise<void> {
    await this.leases.releaseAll(this.owner);
  }

  onApplicationBootstrap(): void {
    if (!this.settings.schedulersEnabled) return;
    this.loop.start(this.scheduler, this.settings.reaperTickMs);
    // The first pass now rather than one tick later; through the loop, so an error is logged (not a
    // failed start) and shutdown waits for it.
    void this.loop.tick();
  }

  /** Returns how many jobs were rejected. */
  async reap(): Promise<number> {
    const now = this.clock.now();
    let n = 0;
    for (const id of await this.jobs.staleIntakes(now, 100))
      n += await this.db.steps(() => this.jobs.rejectIncompleteIntake(id, now, now));
    // Each was an upload whose intake lease expired (the request died with its replica or client).
    this.metrics.recordLeaseTakeover('bulk_intake', n);
    return n;
  }

  /** Returns how many rows were settled (sending and pending rows of cancelled jobs). */
  async settleOrphans(): Promise<number> {
    const now = this.clock.now();
    // Cancelled jobs with unsettled rows and no live lease; the least recently tried first, so one
    // that keeps failing cannot starve the others (the claim bumps updated_at).
    let n = 0;
    for (const job of await this.leases.unsettledCancelled(now, 20)) {
      if (this.loop.halted) break;
      if (!(await this.leases.leaseCancelled(job.id, this.owner, now + this.settings.dispatchLeaseMs, now))) continue;
      if (job.leaseOwner !== null) this.metrics.recordLeaseTakeover('bulk_reaper');
      try {
        n += await this.settleJob(job.id, job.accountId);
      } catch (err) {
        this.logger.error({ err, jobId: job.id }, 'settling the rows of a cancelled job failed; will retry');
      } finally {
        await this.leases.release(job.id, this.owner);
      }
    }
    return n;
  }

  private async settleJob(jobId: string, accountId: AccountId): Promise<number> {
    const now = this.clock.now();
    // Rows put back to pending after the cancel (a window cut short for want of money: none of them
    // holds a payment) are cancelled like the others; the window in flight is left to the orphans' pass.
    let n = await this.db.steps(() => this.jobs.cancelLeftoverRows(jobId, now));
    for (const r of await this.rows.orphans(jobId, 100)) {
      // Keep the lease while settling (a provider lookup may be slow); stop if it was taken.
      if (!(await this.leases.renew(jobId, this.owner, this.clock.now() + this.settings.dispatchLeaseMs))) break;
      const s = await this.settleRow(jobId, accountId, r);
      if (!s) continue;
      const at = this.clock.now();
      n += await this.db.steps(() => this.leases.settleOrphan(jobId, s, at));
    }
    return n;
  }

  /** One orphaned row's outcome, from the message log; nothing is sent. null: still open, next pass. */
  private async settleRow(jobId: string, accountId: AccountId, r: ClaimedRow): Promise<SettledRow | null> {
    const now = this.clock.now();
    const { idx, messageId } = r;
    const row = takenOf(r);
    const cancelled: SettledRow = { ...row, status: 'cancelled', code: null, message: null, at: null };
    let m = await this.log.findOwned(accountId, messageId);
    if (!m) {
      // Never paid: claim the id as a cancelled message, so a stalled runner's late payment and insert
      // of it fail on the key (and roll back) instead of leaving a paid message nobody settles.
      let messageType = 'free_text';
      try {
        messageType = String((JSON.parse(r.payload) as { messageType?: unknown }).messageType ?? messageType);
      } catch {
        // (the row was validated; keep the default)
      }
      const claimed = await this.log.insertUnpaidFailure(
        {
          id: messageId,
          accountId,
          channel: r.channel ?? '',
          messageType,
          recipient: r.to ?? '',
          bulkJobId: jobId,
          rowIndex: idx,
          ...CANCELLED,
        },
        now,
      );
      if (claimed) {
        this.metrics.recordMessage(accountId, r.channel ?? '', 'failed');
        return cancelled;
      }
      m = await this.log.findOwned(accountId, messageId);
      if (!m) return null;
    }
    if (m.status === 'queued' || m.status === 'scheduled') {
      await this.pipeline
        .reconcile(m, CANCELLED)
        .catch((err: unknown) => this.logger.warn(`settling message ${messageId} failed: ${String(err)}`));
      m = await this.log.findOwned(accountId, messageId);
      if (!m) return null;
    }
    if (wasSent(m)) return { ...row, status: 'sent', code: null, message: null, at: m.sentAt ?? now };
    if (m.status !== 'failed') return null;
    if (m.errorCode === CANCELLED.code) return cancelled;
    return { ...row, status: 'failed', code: m.errorCode, message: m.errorMessage, at: m.updatedAt };
  }
}
