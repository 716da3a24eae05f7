import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Clock } from '../../common/clock';
import { ShutdownCoordinator } from '../../common/shutdown/shutdown-coordinator';
import { SinglePeriodicJob } from '../../common/single-periodic-job';
import { AppConfig } from '../../config/app-config';
import { InboundSmsService } from './inbound-sms.service';

/** How often incomplete concatenated SMS are looked for (they are held INBOUND_PART_HOLD_MS). */
const SWEEP_INTERVAL_MS = 30_000;

/**
 * Stores the concatenated SMS whose missing parts never came (InboundSmsService.storeIncomplete).
 * Safe in several replicas: a set is joined by one conditional UPDATE, the loser stores nothing.
 */
@Injectable()
export class InboundSmsSweeper implements OnApplicationBootstrap {
  private readonly loop = new SinglePeriodicJob('inbound-sms-sweep', () =>
    this.inbound.storeIncomplete(this.clock.now()),
  );

  constructor(
    private readonly inbound: InboundSmsService,
    private readonly scheduler: SchedulerRegistry,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    shutdown: ShutdownCoordinator,
  ) {
    shutdown.register({
      name: 'inbound-sms-sweep',
      stopClaiming: () => this.loop.halt(),
      drain: () => this.loop.idle(),
    });
  }

  onApplicationBootstrap(): void {
    if (this.config.schedulers.enabled) this.loop.start(this.scheduler, SWEEP_INTERVAL_MS);
  }

  /** One sweep now (skipped while one runs); resolves to the number of sets stored. Public for tests. */
  async tick(): Promise<number> {
    return (await this.loop.tick()) ?? 0;
  }
}
