import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Clock } from '../common/clock';
import { SinglePeriodicJob } from '../common/single-periodic-job';
import { ShutdownCoordinator } from '../common/shutdown/shutdown-coordinator';
import { MessageLog } from '../messaging/message-log';
import { wasSent } from '../messaging/outcome-recorder';
import { NotSent, SendPipeline } from '../messaging/send-pipeline';
import type { BulkRowErrorCode } from './bulk-error-codes';
import { UnitOfWork } from '../database/unit-of-work';
import { sql, StmtResult, Steps } from '../database/sql';
import { BulkSettings } from './bulk-settings';
import { rejectIncompleteIntake } from './intake-rejection';
import { MetricsService } from '../metrics/metrics.service';

interface Settled {
  idx: number;
  status: 'sent' | 'failed' | 'cancelled';
  code: BulkRowErrorCode | null;
  message: string | null;
  at: number;
}

const CANCELLED: NotSent = { code: 'CANCELLED', message: 'The job was cancelled before this message was sent' };

/**
 * At start-up and then every BULK_REAPER_TICK_MS (only when SCHEDULERS_ENABLED):
 * - jobs left `accepting` (process killed mid-upload, client gone) whose intake lease expired become
 *   `rejected` / INTAKE_INCOMPLETE and lose their rows;
 * - cancelled jobs whose last window was cut off (crash or lost lease, then cancel) or left paid rows
 *   it did not attempt (a provider error, a rate limit, shutdown) can still have rows in `sending`
 *   (or put back to `pending`, unpaid, after the cancel) that no runner will touch again: with no
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
    private readonly log: MessageLog,
    private readonly pipeline: SendPipeline,
    private readonly metrics: MetricsService,
    shutdown: ShutdownCoordinator,
  ) {
    this.owner = `${settings.instanceId.slice(0, 34)}:reap`;
    // (A settling pass lets go of its job's lease when it ends; the sweep covers one that failed to.)
    shutdown.register({ name: 'bulk-reaper', stopClaiming: () => this.loop.halt(), drain: () => this.loop.idle(), releaseLeases: () => this.releaseLeases() });
  }

  private async releaseLeases(): Promise<void> {
    await this.db.run(sql('UPDATE bulk_jobs SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = ?', this.owner));
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
    const stale = await this.db.rows(
      sql(`SELECT id FROM bulk_jobs WHERE status = 'accepting' AND (lease_expires_at IS NULL OR lease_expires_at < ?) ORDER BY id LIMIT 100`, now),
    );
    let n = 0;
    for (const row of stale) {
      const id = String(row.id);
      n += await this.db.steps(() => rejectIncompleteIntake(id, now, now));
    }
    // Each was an upload whose intake lease expired (the request died with its replica or client).
    this.metrics.recordLeaseTakeover('bulk_intake', n);
    return n;
  }

  /** Returns how many rows were settled (sending and pending rows of cancelled jobs). */
  async settleOrphans(): Promise<number> {
    const now = this.clock.now();
    // Cancelled jobs with unsettled rows and no live lease; the least recently tried first, so one
    // that keeps failing cannot starve the others (the claim bumps updated_at).
    const jobs = await this.db.rows(
      sql(
        `SELECT id, account_id, lease_owner FROM bulk_jobs WHERE status = 'cancelled' AND pending_count > 0 AND (lease_owner IS NULL OR lease_expires_at < ?) ORDER BY updated_at LIMIT 20`,
        now,
      ),
    );
    let n = 0;
    for (const job of jobs) {
      if (this.loop.halted) break;
      const id = String(job.id);
      const claim = await this.db.run(
        sql(
          `UPDATE bulk_jobs SET lease_owner = ?, lease_expires_at = ?, updated_at = ? WHERE id = ? AND status = 'cancelled' AND (lease_owner IS NULL OR lease_expires_at < ?)`,
          this.owner, now + this.settings.dispatchLeaseMs, now, id, now,
        ),
      );
      if (claim.affected !== 1) continue;
      if (job.lease_owner !== null) this.metrics.recordLeaseTakeover('bulk_reaper');
      try {
        n += await this.settleJob(id, String(job.account_id));
      } catch (err) {
        this.logger.error({ err, jobId: id }, 'settling the rows of a cancelled job failed; will retry');
      } finally {
        await this.db.run(sql('UPDATE bulk_jobs SET lease_owner = NULL, lease_expires_at = NULL WHERE id = ? AND lease_owner = ?', id, this.owner));
      }
    }
    return n;
  }

  private async settleJob(jobId: string, accountId: string): Promise<number> {
    const now = this.clock.now();
    // Rows put back to pending after the cancel (a window cut short for want of money: none of them
    // holds a payment) are cancelled like the others.
    let n = await this.db.steps(function* (): Steps<number> {
      const r: StmtResult = yield sql(`UPDATE bulk_rows SET status = 'cancelled' WHERE job_id = ? AND status = 'pending'`, jobId);
      if (r.affected) yield sql('UPDATE bulk_jobs SET pending_count = pending_count - ?, cancelled_count = cancelled_count + ?, updated_at = ? WHERE id = ?', r.affected, r.affected, now, jobId);
      return r.affected;
    });
    const rows = await this.db.rows(sql(`SELECT idx, message_id, to_addr, channel, payload FROM bulk_rows WHERE job_id = ? AND status = 'sending' ORDER BY idx LIMIT 100`, jobId));
    for (const r of rows) {
      // Keep the lease while settling (a provider lookup may be slow); stop if it was taken.
      const renewed = await this.db.run(sql('UPDATE bulk_jobs SET lease_expires_at = ? WHERE id = ? AND lease_owner = ?', this.clock.now() + this.settings.dispatchLeaseMs, jobId, this.owner));
      if (renewed.affected !== 1) break;
      const s = await this.settleRow(jobId, accountId, r);
      if (!s) continue;
      const at = this.clock.now();
      n += await this.db.steps(function* (): Steps<number> {
        const u: StmtResult = yield sql(
          `UPDATE bulk_rows SET status = ?, error_code = ?, error_message = ?, sent_at = ? WHERE job_id = ? AND idx = ? AND status = 'sending'`,
          s.status, s.code, s.message === null ? null : s.message.slice(0, 500), s.status === 'cancelled' ? null : s.at, jobId, s.idx,
        );
        if (!u.affected) return 0;
        yield sql(
          `UPDATE bulk_jobs SET pending_count = pending_count - 1, ${s.status}_count = ${s.status}_count + 1, updated_at = ? WHERE id = ?`,
          at, jobId,
        );
        return 1;
      });
    }
    return n;
  }

  /** One orphaned row's outcome, from the message log; nothing is sent. null: still open, next pass. */
  private async settleRow(jobId: string, accountId: string, r: Record<string, unknown>): Promise<Settled | null> {
    const now = this.clock.now();
    const idx = Number(r.idx);
    const cancelled: Settled = { idx, status: 'cancelled', code: null, message: null, at: now };
    if (r.message_id === null) return cancelled;
    const messageId = String(r.message_id);
    let m = await this.log.findOwned(accountId, messageId);
    if (!m) {
      // Never paid: claim the id as a cancelled message, so a stalled runner's late payment and insert
      // of it fail on the key (and roll back) instead of leaving a paid message nobody settles.
      let messageType = 'free_text';
      try {
        messageType = String((JSON.parse(String(r.payload)) as { messageType?: unknown }).messageType ?? messageType);
      } catch {
        // (the row was validated; keep the default)
      }
      const claimed = await this.log.insertUnpaidFailure(
        { id: messageId, accountId, channel: String(r.channel ?? ''), messageType, recipient: String(r.to_addr ?? ''), bulkJobId: jobId, rowIndex: idx, ...CANCELLED },
        now,
      );
      if (claimed) {
        this.metrics.recordMessage(String(r.channel ?? ''), 'failed');
        return cancelled;
      }
      m = await this.log.findOwned(accountId, messageId);
      if (!m) return null;
    }
    if (m.status === 'queued' || m.status === 'scheduled') {
      await this.pipeline.reconcile(m, CANCELLED).catch((err: unknown) => this.logger.warn(`settling message ${messageId} failed: ${String(err)}`));
      m = await this.log.findOwned(accountId, messageId);
      if (!m) return null;
    }
    if (wasSent(m)) return { idx, status: 'sent', code: null, message: null, at: m.sentAt ?? now };
    if (m.status !== 'failed') return null;
    if (m.errorCode === CANCELLED.code) return cancelled;
    return { idx, status: 'failed', code: m.errorCode, message: m.errorMessage, at: m.updatedAt };
  }
}
