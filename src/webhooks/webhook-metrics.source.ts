import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { MetricsService } from '../metrics/metrics.service';
import { WebhookDeliveryEntity } from './entities/webhook-delivery.entity';

/** webhook_outbox_pending: deliveries still to attempt, counted on the (status, next_attempt_at) index. */
@Injectable()
export class WebhookMetricsSource implements OnModuleInit {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly metrics: MetricsService,
  ) {}

  onModuleInit(): void {
    this.metrics.addGaugeSource('webhooks', () => this.refresh());
  }

  async refresh(): Promise<void> {
    const row = await this.dataSource.manager
      .createQueryBuilder(WebhookDeliveryEntity, 'd')
      .select('COUNT(*)', 'n')
      .where('d.status = :pending', { pending: 'pending' })
      .getRawOne<{ n: number | string }>();
    this.metrics.setWebhookOutboxPending(Number(row?.n ?? 0));
  }
}
