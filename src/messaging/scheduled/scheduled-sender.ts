import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { Clock } from '../../common/clock';
import { newId } from '../../common/ids';
import { MessageLog } from '../message-log';
import { SendPipeline } from '../send-pipeline';
import type { ValidatedMessage } from '../validation/validated-message';
import { SinglePeriodicJob } from '../../common/single-periodic-job';
import { MetricsService } from '../../metrics/metrics.service';
import { ShutdownCoordinator } from '../../common/shutdown/shutdown-coordinator';

const INTERVAL_NAME = 'messaging.scheduled-sender';
const UNREADABLE = { code: 'PROVIDER_ERROR', message: 'The stored message could not be read; it was not sent' };

/**
 * Sends scheduled messages when due. Safe with several replicas and across restarts: a row is taken
 * with a conditional UPDATE (lease); a row whose lease expired after a crash is taken again and
 * settled through the provider's lookup of our message id before anything is re-sent. It also
 * settles single sends a crash left `queued`.
 */
@Injectable()
export class ScheduledSender implements OnApplicationBootstrap {
  private readonly logger = new Logger(ScheduledSender.name);
  private readonly owner = newId('rep');
  private readonly job = new SinglePeriodicJob(INTERVAL_NAME, () => this.runOnce());
  private readonly batch: number;
  private readonly leaseMs: number;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly log: MessageLog,
    private readonly pipeline: SendPipeline,
    private readonly scheduler: SchedulerRegistry,
    private readonly metrics: MetricsService,
    shutdown: ShutdownCoordinator,
  ) {
    this.batch = config.scheduledSends.batch;
    this.leaseMs = config.scheduledSends.leaseMs;
    // Shutdown: the message being sent is finished and recorded; none after it is claimed.
    shutdown.register({ name: 'scheduled-sender', stopClaiming: () => this.job.halt(), drain: () => this.job.idle(), releaseLeases: () => this.releaseLeases() });
  }

  onApplicationBootstrap(): void {
    if (!this.config.schedulers.enabled) return;
    const every = this.config.scheduledSends.tickMs;
    this.job.start(this.scheduler, every);
  }

  /**
   * Messages claimed but not settled (a pass that failed half-way, perhaps after the provider took
   * the message): claimable again at once by any replica, whose claim makes it a second attempt that
   * settles the first one before sending. The lease is left expired, not cleared: a cancel needs
   * `lease_expires_at IS NULL` (never claimed), so one that may have reached the provider is never refunded.
   */
  private async releaseLeases(): Promise<void> {
    await this.log.exec("UPDATE messages SET lease_owner = NULL, lease_expires_at = 0 WHERE lease_owner = ? AND status IN ('scheduled', 'queued')", [this.owner]);
  }

  /** One pass; skipped while the previous one still runs. */
  async tick(): Promise<void> {
    await this.job.tick();
  }

  async runOnce(): Promise<number> {
    const now = this.clock.now();
    const due: { id: string; lease_owner: string | null }[] = await this.ds.query(
      `SELECT id, lease_owner FROM messages WHERE status = 'scheduled' AND scheduled_at <= ? AND (lease_expires_at IS NULL OR lease_expires_at < ?) ORDER BY scheduled_at LIMIT ${this.batch}`,
      [now, now],
    );
    let handled = await this.reconcileStale(now);
    for (const { id, lease_owner } of due) {
      if (this.job.halted) break;
      if (!(await this.claim(id, now))) continue;
      // Still leased by an attempt that never settled it: its replica died (or stalled) mid-send.
      if (lease_owner !== null) this.metrics.recordLeaseTakeover('scheduled_send');
      const row = await this.log.findById(id);
      if (!row || row.status !== 'scheduled') continue;
      let msg: ValidatedMessage;
      try {
        msg = JSON.parse(row.payload ?? '') as ValidatedMessage;
      } catch {
        // Unreadable stored message: failed and refunded, never sent, the rest of the pass goes on.
        await this.pipeline.reconcile(row, UNREADABLE).catch((err: unknown) => this.logger.warn(`scheduled message ${id}: ${String(err)}`));
        handled++;
        continue;
      }
      try {
        await this.pipeline.sendRecorded(row, msg, { bulkJobId: row.bulkJobId ?? undefined, rowIndex: row.rowIndex ?? undefined });
      } catch (err) {
        // The pipeline already marked it failed and refunded; nothing else to do.
        this.logger.warn(`scheduled message ${id} failed: ${String(err)}`);
      }
      handled++;
    }
    return handled;
  }

  /** Single sends left `queued` by a crash (older than a lease): settle them through the provider. */
  private async reconcileStale(now: number): Promise<number> {
    const stale: { id: string }[] = await this.ds.query(
      `SELECT id FROM messages WHERE status = 'queued' AND bulk_job_id IS NULL AND updated_at < ? AND (lease_expires_at IS NULL OR lease_expires_at < ?) LIMIT ${this.batch}`,
      [now - this.leaseMs, now],
    );
    let handled = 0;
    for (const { id } of stale) {
      if (this.job.halted) break;
      if (!(await this.claim(id, now, 'queued'))) continue;
      const row = await this.log.findById(id);
      if (!row || row.status !== 'queued') continue;
      await this.pipeline.reconcile(row).catch((err: unknown) => this.logger.warn(`reconcile ${id} failed: ${String(err)}`));
      handled++;
    }
    return handled;
  }

  private async claim(id: string, now: number, status: 'scheduled' | 'queued' = 'scheduled'): Promise<boolean> {
    const changed = await this.log.exec(
      'UPDATE messages SET lease_owner = ?, lease_expires_at = ?, attempts = attempts + 1, updated_at = ? WHERE id = ? AND status = ? AND (lease_expires_at IS NULL OR lease_expires_at < ?)',
      [this.owner, now + this.leaseMs, now, id, status, now],
    );
    return changed === 1;
  }
}
