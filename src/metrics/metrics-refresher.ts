import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { AppConfig } from '../config/app-config';
import { SinglePeriodicJob } from '../common/single-periodic-job';
import { ShutdownCoordinator } from '../common/shutdown/shutdown-coordinator';
import { MetricsService } from './metrics.service';

/**
 * Refreshes the table gauges every METRICS_REFRESH_MS (and once at start-up), so a scrape never
 * queries the database and many scrapers cost nothing extra. Off with METRICS_ENABLED=false or
 * SCHEDULERS_ENABLED=false.
 */
@Injectable()
export class MetricsRefresher implements OnApplicationBootstrap {
  private readonly job = new SinglePeriodicJob('metrics-refresh', () => this.metrics.refreshGauges());

  constructor(
    private readonly metrics: MetricsService,
    private readonly config: AppConfig,
    private readonly scheduler: SchedulerRegistry,
    shutdown: ShutdownCoordinator,
  ) {
    shutdown.register({ name: 'metrics-refresh', stopClaiming: () => this.job.halt(), drain: () => this.job.idle() });
  }

  onApplicationBootstrap(): void {
    if (!this.config.metrics.enabled || !this.config.schedulers.enabled) return;
    this.job.start(this.scheduler, this.config.metrics.refreshMs);
    void this.job.tick();
  }
}
