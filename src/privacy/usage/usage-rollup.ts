import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Clock } from '../../common/clock';
import { ShutdownCoordinator } from '../../common/shutdown/shutdown-coordinator';
import { SinglePeriodicJob } from '../../common/single-periodic-job';
import { AppConfig } from '../../config/app-config';
import { UsageRepository } from './usage.repository';

const BATCH = 1000;

/**
 * Rolls settled messages into the per-account daily usage records, every USAGE_ROLLUP_TICK_MS and at
 * start-up, until none is left. Needs no lease: each unit locks the messages it counts (skipping rows
 * another replica or a sender holds) and marks them counted in the same unit, so a message is counted
 * once; a retried message (failed, paid again) is unmarked by its requeue and counted again with its
 * new payment (its refunded failure counted nothing).
 */
@Injectable()
export class UsageRollup implements OnApplicationBootstrap {
  private readonly job = new SinglePeriodicJob('usage-rollup', () => this.rollAll());

  constructor(
    private readonly repo: UsageRepository,
    private readonly clock: Clock,
    private readonly scheduler: SchedulerRegistry,
    private readonly config: AppConfig,
    shutdown: ShutdownCoordinator,
  ) {
    shutdown.register({ name: 'usage-rollup', stopClaiming: () => this.job.halt(), drain: () => this.job.idle() });
  }

  onApplicationBootstrap(): void {
    if (!this.config.schedulers.enabled) return;
    void this.job.tick();
    this.job.start(this.scheduler, this.config.retention.usageTickMs);
  }

  /** One pass now (unless one is running): how many messages it counted. */
  async tick(): Promise<number | undefined> {
    return this.job.tick();
  }

  private async rollAll(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.repo.rollBatch(BATCH, this.clock.now());
      total += n;
      if (n < BATCH || this.job.halted) return total;
    }
  }
}
