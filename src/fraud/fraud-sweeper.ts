import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Clock } from '../common/clock';
import { ShutdownCoordinator } from '../common/shutdown/shutdown-coordinator';
import { SinglePeriodicJob } from '../common/single-periodic-job';
import { AppConfig } from '../config/app-config';
import { minuteOf } from './destination-prefix';
import { FraudBlocksService } from './fraud-blocks.service';
import { PREFIX_COUNTERS, PrefixCounters } from './prefix-counters';

/**
 * Every FRAUD_SWEEP_TICK_MS (and at start-up): closes blocks whose time ran out, each with its
 * `verification.fraud_unblocked` event (a conditional UPDATE: on several replicas, one closes each),
 * and deletes counter minutes older than the window.
 */
@Injectable()
export class FraudSweeper implements OnApplicationBootstrap {
  private readonly job = new SinglePeriodicJob('fraud-sweep', () => this.sweep());

  constructor(
    private readonly blocks: FraudBlocksService,
    @Inject(PREFIX_COUNTERS) private readonly counters: PrefixCounters,
    private readonly scheduler: SchedulerRegistry,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    shutdown: ShutdownCoordinator,
  ) {
    shutdown.register({ name: 'fraud-sweep', stopClaiming: () => this.job.halt(), drain: () => this.job.idle() });
  }

  onApplicationBootstrap(): void {
    if (!this.config.schedulers.enabled) return;
    void this.job.tick();
    this.job.start(this.scheduler, this.config.fraud.sweepTickMs);
  }

  async sweep(): Promise<{ expired: number; pruned: number }> {
    const expired = await this.blocks.expireDue();
    const pruned = await this.counters.prune(minuteOf(this.clock.now() - this.config.fraud.windowMs));
    return { expired, pruned };
  }
}
