import { Injectable, OnModuleInit } from '@nestjs/common';
import { decoders, query, sql } from '../database/sql';
import { UnitOfWork } from '../database/unit-of-work';
import { MetricsService } from '../metrics/metrics.service';

/** Deliveries still to attempt, counted on the (status, next_attempt_at) index. */
const pendingCount = () =>
  query(decoders.n, sql(`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'pending'`));

/** webhook_outbox_pending: deliveries still to attempt. */
@Injectable()
export class WebhookMetricsSource implements OnModuleInit {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly metrics: MetricsService,
  ) {}

  onModuleInit(): void {
    this.metrics.addGaugeSource('webhooks', () => this.refresh());
  }

  async refresh(): Promise<void> {
    const [n = 0] = await this.uow.read(pendingCount());
    this.metrics.setWebhookOutboxPending(n);
  }
}
