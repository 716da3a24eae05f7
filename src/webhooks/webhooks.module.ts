import { Global, Module } from '@nestjs/common';
import { EVENT_SINK } from '../messaging/events/event-sink';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WebhookAttemptEntity } from './entities/webhook-attempt.entity';
import { WebhookDeliveryEntity } from './entities/webhook-delivery.entity';
import { WebhookEndpointEntity } from './entities/webhook-endpoint.entity';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookDeliveryWorker } from './webhook-delivery.worker';
import { WebhookHttpClient } from './webhook-http.client';
import { WebhookMetricsSource } from './webhook-metrics.source';
import { WebhookSettingsService } from './webhook-settings.service';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';
import { OutboxEventSink } from './outbox-event-sink';

/**
 * Outbound events: durable outbox, delivery loop, developer webhook settings. Global only to hand
 * messaging its EVENT_SINK port (messaging sits below webhooks).
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([WebhookDeliveryEntity, WebhookAttemptEntity, WebhookEndpointEntity])],
  controllers: [WebhooksController],
  providers: [WebhooksService, WebhookHttpClient, WebhookDeliveryWorker, WebhookSettingsService, WebhookDeliveriesService, WebhookMetricsSource, OutboxEventSink, { provide: EVENT_SINK, useExisting: OutboxEventSink }],
  exports: [WebhooksService, EVENT_SINK],
})
export class WebhooksModule {}
