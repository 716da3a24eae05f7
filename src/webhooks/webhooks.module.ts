import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WebhookAttemptEntity } from './entities/webhook-attempt.entity';
import { WebhookDeliveryEntity } from './entities/webhook-delivery.entity';
import { WebhookEndpointEntity } from './entities/webhook-endpoint.entity';
import { WebhookTargetPolicy } from './webhook-target.policy';
import { WebhooksService } from './webhooks.service';

/** Outbound events: durable outbox, delivery loop, developer webhook settings. */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookDeliveryEntity, WebhookAttemptEntity, WebhookEndpointEntity])],
  providers: [WebhooksService, WebhookTargetPolicy],
  exports: [WebhooksService],
})
export class WebhooksModule {}
