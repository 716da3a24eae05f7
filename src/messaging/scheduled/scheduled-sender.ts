import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { AppConfig } from '../../config/app-config';
import { Clock } from '../../common/clock';
import { newId } from '../../common/ids';
import { MessageLogRepository } from '../message-log.repository';
import type { MessageEntity } from '../entities/message.entity';
import { SEND_POLICY, type SendPolicy } from '../policy/send-policy';
import { NotSent, SendPipeline } from '../send-pipeline';
import { LeasableMessage, MessageLeasesRepository } from './message-leases.repository';
import type { ValidatedMessage } from '../validation/validated-message';
import { SinglePeriodicJob } from '../../common/single-periodic-job';
import { MetricsService } from '../../metrics/metrics.service';
import { ShutdownCoordinator } from '../../common/shutdown/shutdown-coordinator';

const INTERVAL_NAME = 'messaging.scheduled-sender';
const UNREADABLE: NotSent = {
  code: 'PROVIDER_ERROR',
  message: 'The stored message could not be read; it was not sent',
};

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
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly log: MessageLogRepository,
    private readonly leases: MessageLeasesRepository,
    private readonly pipeline: SendPipeline,
    private readonly scheduler: SchedulerRegistry,
    private readonly metrics: MetricsService,
    @Inject(SEND_POLICY) private readonly policy: SendPolicy,
    shutdown: ShutdownCoordinator,
  ) {
    this.batch = config.scheduledSends.batch;
    this.leaseMs = config.scheduledSends.leaseMs;
    // Shutdown: the message being sent is finished and recorded; none after it is claimed.
    shutdown.register({
      name: 'scheduled-sender',
      stopClaiming: () => this.job.halt(),
      drain: () => this.job.idle(),
      releaseLeases: () => this.releaseLeases(),
    });
  }

  onApplicationBootstrap(): void {
    if (!this.config.schedulers.enabled) return;
    const every = this.config.scheduledSends.tickMs;
    this.job.start(this.scheduler, every);
  }

  /**
   * Messages claimed but not settled (a pass that failed half-way, perhaps after the provider took
   * the message): claimable again at once by any replica, whose claim makes it a second attempt that
   * settles the first one before sending.
   */
  private async releaseLeases(): Promise<void> {
    await this.leases.expireLeasesOfAcrossAccounts(this.owner);
  }

  /** One pass; skipped while the previous one still runs. */
  async tick(): Promise<void> {
    await this.job.tick();
  }

  async runOnce(): Promise<number> {
    const now = this.clock.now();
    const due = await this.leases.dueAcrossAccounts(now, this.batch);
    let handled = await this.reconcileStale(now);
    for (const m of due) {
      if (this.job.halted) break;
      if (!(await this.claim(m, 'scheduled', now))) continue;
      // Still leased by an attempt that never settled it: its replica died (or stalled) mid-send.
      if (m.leaseOwner !== null) this.metrics.recordLeaseTakeover('scheduled_send');
      const { id } = m;
      const row = await this.log.findOwned(m.accountId, id);
      if (!row || row.status !== 'scheduled') continue;
      let msg: ValidatedMessage;
      try {
        msg = JSON.parse(row.payload ?? '') as ValidatedMessage;
      } catch {
        // Unreadable stored message: failed and refunded, never sent, the rest of the pass goes on.
        await this.pipeline
          .reconcile(row, UNREADABLE)
          .catch((err: unknown) => this.logger.warn(`scheduled message ${id}: ${String(err)}`));
        handled++;
        continue;
      }
      // Asked again when due: an opt-out since the send is honoured, and marketing waits for the sending hours.
      if (await this.heldOrRefused(row, msg, m.leaseOwner === null, now)) {
        handled++;
        continue;
      }
      try {
        await this.pipeline.sendRecorded(row, msg, {
          bulkJobId: row.bulkJobId ?? undefined,
          rowIndex: row.rowIndex ?? undefined,
        });
      } catch (err) {
        // The pipeline already marked it failed and refunded; nothing else to do.
        this.logger.warn(`scheduled message ${id} failed: ${String(err)}`);
      }
      handled++;
    }
    return handled;
  }

  /**
   * The send policy for a due message: refused -> failed with its code and refunded (after the
   * provider lookup, should an earlier attempt have reached it); held on a first attempt -> put back
   * for the window's opening. true when it is not to be sent now.
   */
  private async heldOrRefused(
    row: MessageEntity,
    msg: ValidatedMessage,
    first: boolean,
    now: number,
  ): Promise<boolean> {
    const [d] = await this.policy.decide([
      {
        accountId: row.accountId,
        channel: msg.channel,
        recipient: msg.to,
        purpose: msg.purpose ?? 'transactional',
        senderName: msg.sender,
        origin: 'scheduled',
      },
    ]);
    if (d.kind === 'refuse') {
      const notSent = { code: d.code, message: `${row.recipient.slice(0, 40)} opted out before the message was due` };
      await this.pipeline
        .reconcile(row, notSent)
        .catch((err: unknown) => this.logger.warn(`scheduled message ${row.id}: ${String(err)}`));
      return true;
    }
    if (d.kind === 'hold' && first) {
      return this.leases.reschedule(row.accountId, row.id, this.owner, d.until.getTime(), now);
    }
    return false;
  }

  /** Single sends left `queued` by a crash (older than a lease): settle them through the provider. */
  private async reconcileStale(now: number): Promise<number> {
    const stale = await this.leases.staleQueuedAcrossAccounts(now - this.leaseMs, now, this.batch);
    let handled = 0;
    for (const m of stale) {
      if (this.job.halted) break;
      if (!(await this.claim(m, 'queued', now))) continue;
      const row = await this.log.findOwned(m.accountId, m.id);
      if (!row || row.status !== 'queued') continue;
      await this.pipeline
        .reconcile(row)
        .catch((err: unknown) => this.logger.warn(`reconcile ${m.id} failed: ${String(err)}`));
      handled++;
    }
    return handled;
  }

  private async claim(m: LeasableMessage, status: 'scheduled' | 'queued', now: number): Promise<boolean> {
    return this.leases.claim(m.accountId, m.id, status, this.owner, now, now + this.leaseMs);
  }
}
