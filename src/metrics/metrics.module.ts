import { Global, Module } from '@nestjs/common';
import { MetricsController } from './metrics.controller';
import { MetricsRefresher } from './metrics-refresher';
import { createMetricsRegistry, METRICS_REGISTRY } from './metrics-registry';
import { MetricsService } from './metrics.service';

/**
 * Prometheus metrics: GET /metrics, the app's registry and MetricsService. Global, like the clock:
 * every feature records through MetricsService (features -> metrics, never the other way).
 */
@Global()
@Module({
  controllers: [MetricsController],
  providers: [{ provide: METRICS_REGISTRY, useFactory: createMetricsRegistry }, MetricsService, MetricsRefresher],
  exports: [MetricsService],
})
export class MetricsModule {}
