import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { AUDIT_TRAIL, AuditTrail } from '../../common/audit/audit-trail';
import { Clock } from '../../common/clock';
import { ErasureTarget, RecipientErasers } from '../../common/erasure/recipient-erasers';
import { randomPart } from '../../common/ids';
import { currentRequest } from '../../logging/request-context';
import { ShutdownCoordinator } from '../../common/shutdown/shutdown-coordinator';
import { SinglePeriodicJob } from '../../common/single-periodic-job';
import { AppConfig } from '../../config/app-config';
import { UnitOfWork } from '../../database/unit-of-work';
import { EVENT_SINK, EventSink } from '../../messaging/events/event-sink';
import { erasureForms } from './erasure-target';
import { erasureView } from './erasure.view';
import { ErasureCounts, ErasureRecord, ErasuresRepository } from './erasures.repository';

/**
 * The erasure loop: every ERASURE_TICK_MS, at start-up and at once after a request. A replica takes a
 * running erasure by lease (a conditional UPDATE), runs every registered eraser in batches of
 * ERASURE_BATCH_ROWS until each finds nothing left, recording its counts and renewing the lease after
 * every batch (a lost lease stops it: another replica took over and a batch is idempotent). Rows still
 * in a sender's hands keep it running until a later pass. Completion, its event
 * (`privacy.erasure.completed`) and its audit entry commit together, and only for the run worked on.
 */
@Injectable()
export class ErasureRunner implements OnApplicationBootstrap {
  private readonly job = new SinglePeriodicJob('erasure', () => this.pass());
  private readonly owner = `era-${randomPart(12)}`;
  private again = false;

  constructor(
    private readonly erasures: ErasuresRepository,
    private readonly erasers: RecipientErasers,
    @Inject(EVENT_SINK) private readonly events: EventSink,
    @Inject(AUDIT_TRAIL) private readonly audit: AuditTrail,
    private readonly uow: UnitOfWork,
    private readonly scheduler: SchedulerRegistry,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    shutdown: ShutdownCoordinator,
  ) {
    shutdown.register({ name: 'erasure', stopClaiming: () => this.job.halt(), drain: () => this.job.idle() });
  }

  onApplicationBootstrap(): void {
    if (!this.config.schedulers.enabled) return;
    void this.job.tick();
    this.job.start(this.scheduler, this.config.erasure.tickMs);
  }

  /** A new request: run a pass now (or right after the one in progress). */
  kick(): void {
    if (!this.config.schedulers.enabled) return;
    this.again = true;
    // Outside the request's context: the loop's work is the system's, not the caller's (audit actor).
    currentRequest.exit(() => void this.job.tick());
  }

  /** Passes until no request came in meanwhile; how many erasures completed. */
  async pass(): Promise<number> {
    let completed = 0;
    do {
      this.again = false;
      const now = this.clock.now();
      for (const id of await this.erasures.claimableAcrossAccounts(now, 10)) {
        if (this.job.halted) return completed;
        const e = await this.erasures.claim(id, this.owner, now, now + this.config.erasure.leaseMs);
        if (e && (await this.work(e))) completed++;
      }
    } while (this.again && !this.job.halted);
    return completed;
  }

  /** Erases what `e` names; true when it completed. The lease is released whatever happens. */
  private async work(e: ErasureRecord): Promise<boolean> {
    try {
      if (e.recipient === null) return false;
      const forms = erasureForms(e.recipient, this.config.messaging.defaultRegion);
      const target: ErasureTarget = { accountId: e.accountId, forms, hash: e.recipientHash };
      const counts: ErasureCounts = { ...e.counts };
      const limit = this.config.erasure.batchRows;
      for (const eraser of this.erasers.all()) {
        for (;;) {
          if (this.job.halted) return false;
          const n = await eraser.erase(target, limit);
          if (n > 0) {
            counts[eraser.kind] = (counts[eraser.kind] ?? 0) + n;
            const now = this.clock.now();
            if (!(await this.erasures.progress(e.id, this.owner, counts, now, now + this.config.erasure.leaseMs)))
              return false;
          }
          if (n < limit) break;
        }
      }
      for (const eraser of this.erasers.all()) if (await eraser.waiting?.(target)) return false;
      return await this.complete({ ...e, counts });
    } finally {
      await this.erasures.release(e.id, this.owner);
    }
  }

  private async complete(e: ErasureRecord): Promise<boolean> {
    const now = this.clock.now();
    return this.uow.transaction(async (tx) => {
      if (!(await this.erasures.complete(e.id, this.owner, e.run, now))) return false;
      const view = erasureView({ ...e, status: 'completed', recipient: null, completedAt: now, updatedAt: now });
      await this.events.record(tx, [
        { accountId: e.accountId, type: 'privacy.erasure.completed', data: { ...view }, at: now },
      ]);
      await this.audit.record({
        accountId: e.accountId,
        type: 'privacy.erasure_completed',
        target: e.id,
        actor: 'system',
        changes: { erasureId: e.id, recipientHash: e.recipientHash, counts: view.counts },
      });
      return true;
    });
  }
}
