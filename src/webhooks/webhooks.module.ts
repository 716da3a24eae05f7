import { Global, Module } from '@nestjs/common';
import { EVENT_SINK } from '../messaging/events/event-sink';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventEndpointEntity } from './entities/event-endpoint.entity';
import { WebhookAttemptEntity } from './entities/webhook-attempt.entity';
import { WebhookDeliveryEntity } from './entities/webhook-delivery.entity';
import { WebhookEndpointEntity } from './entities/webhook-endpoint.entity';
import { EventEndpointsController } from './event-endpoints.controller';
import { EventEndpointsRepository } from './event-endpoints.repository';
import { EventEndpointsService } from './event-endpoints.service';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookDeliveryWorker } from './webhook-delivery.worker';
import { WebhookHttpClient } from './webhook-http.client';
import { WebhookMetricsSource } from './webhook-metrics.source';
import { WebhookOutboxRepository } from './webhook-outbox.repository';
import { WebhookSettingsService } from './webhook-settings.service';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';
import { OutboxEventSink } from './outbox-event-sink';
import { OutboxEraser } from './outbox-eraser.repository';

/**
 * Outbound events: durable outbox, delivery loop, developer webhook settings, event endpoints.
 * Global only to hand messaging its EVENT_SINK port (messaging sits below webhooks).
 */
@Global()
@Module({
  imports: [
    TypeOrmModule.forFeature([WebhookDeliveryEntity, WebhookAttemptEntity, WebhookEndpointEntity, EventEndpointEntity]),
  ],
  controllers: [WebhooksController, EventEndpointsController],
  providers: [
    OutboxEraser,
    WebhooksService,
    WebhookHttpClient,
    WebhookDeliveryWorker,
    WebhookSettingsService,
    WebhookDeliveriesService,
    WebhookMetricsSource,
    WebhookOutboxRepository,
    EventEndpointsRepository,
    EventEndpointsService,
    OutboxEventSink,
    { provide: EVENT_SINK, useExisting: OutboxEventSink },
  ],
  exports: [WebhooksService, EVENT_SINK],
})
export class WebhooksModule {}
