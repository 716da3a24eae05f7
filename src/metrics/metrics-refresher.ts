import { Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { AppConfig } from '../config/app-config';
import { SinglePeriodicJob } from '../common/single-periodic-job';
import { MetricsService } from './metrics.service';

/**
 * Refreshes the table gauges every METRICS_REFRESH_MS (and once at start-up), so a scrape never
 * queries the database and many scrapers cost nothing extra. Off with METRICS_ENABLED=false or
 * SCHEDULERS_ENABLED=false.
 */
@Injectable()
export class MetricsRefresher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly job = new SinglePeriodicJob('metrics-refresh', () => this.metrics.refreshGauges());

  constructor(
    private readonly metrics: MetricsService,
    private readonly config: AppConfig,
    private readonly scheduler: SchedulerRegistry,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.metricsEnabled || !this.config.schedulersEnabled) return;
    this.job.start(this.scheduler, this.config.metricsRefreshMs);
    void this.job.tick();
  }

  async onModuleDestroy(): Promise<void> {
    await this.job.stop(this.scheduler);
  }
}
