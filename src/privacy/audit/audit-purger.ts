import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Clock } from '../../common/clock';
import { ShutdownCoordinator } from '../../common/shutdown/shutdown-coordinator';
import { SinglePeriodicJob } from '../../common/single-periodic-job';
import { AppConfig } from '../../config/app-config';
import { AuditEventsRepository } from './audit-events.repository';

const CHUNK = 1000;

/**
 * Deletes audit events older than AUDIT_RETENTION_DAYS (a year by default), every AUDIT_PURGE_TICK_MS
 * and at start-up, in chunks by the indexed created_at. No lease: plain DELETEs that several replicas
 * may run at once (each chunk deletes what is still there).
 */
@Injectable()
export class AuditPurger implements OnApplicationBootstrap {
  private readonly job = new SinglePeriodicJob('audit-purge', () => this.purge());

  constructor(
    private readonly events: AuditEventsRepository,
    private readonly scheduler: SchedulerRegistry,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    shutdown: ShutdownCoordinator,
  ) {
    shutdown.register({ name: 'audit-purge', stopClaiming: () => this.job.halt(), drain: () => this.job.idle() });
  }

  onApplicationBootstrap(): void {
    if (!this.config.schedulers.enabled) return;
    void this.job.tick();
    this.job.start(this.scheduler, this.config.audit.purgeTickMs);
  }

  /** One pass: how many events were deleted. */
  async purge(): Promise<number> {
    const before = this.clock.now() - this.config.audit.retentionMs;
    let total = 0;
    for (;;) {
      const n = await this.events.deleteOlderAcrossAccounts(before, CHUNK);
      total += n;
      if (n < CHUNK || this.job.halted) return total;
    }
  }
}
