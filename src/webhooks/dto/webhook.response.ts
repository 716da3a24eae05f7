import { ApiProperty } from '@nestjs/swagger';
import { ApiLivemode } from '../../common/openapi';
import { TEST_EVENT } from '../webhook-settings.service';

// Response classes of the webhook routes (WebhookSettingsService, WebhookDeliveriesService.toView).

export class WebhookSettings {
  @ApiProperty({ format: 'uri', example: 'https://example.com/hooks/chatapp-web' }) url: string;
  @ApiProperty({
    description:
      'Sent in the X-API-Key header of every delivery. In full (`whk_` + 32 characters) only when just created or rotated; masked (`whk_****abcd`) otherwise.',
    example: 'whk_****x9Qa',
  })
  webhookApiKey: string;
}

export class WebhookDeleted {
  @ApiProperty({ type: 'boolean', enum: [true] }) deleted: true;
}

export class WebhookTestQueued {
  @ApiProperty({ description: 'See GET /webhooks/deliveries.' }) deliveryId: string;
  @ApiProperty({ type: 'string', enum: [TEST_EVENT] }) event: string;
}

export class WebhookAttempt {
  @ApiProperty({ type: 'integer', minimum: 1 }) attempt: number;
  @ApiProperty({ type: 'string', format: 'date-time' }) at: string;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Null when no HTTP response came (timeout, refused connection).',
  })
  httpStatus: number | null;
  @ApiProperty({ type: 'integer', minimum: 0 }) durationMs: number;
  @ApiProperty() success: boolean;
  @ApiProperty({ type: 'string', nullable: true }) error: string | null;
}

export class WebhookDelivery {
  @ApiProperty() id: string;
  @ApiProperty({
    description:
      "The event type (see the API guide: event endpoints' types, and chatapp_web.message.received, webhook.test, sms_sender.approved or sms_sender.rejected to the spec's own receivers).",
  })
  event: string;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'The event endpoint it goes to; null for the web-session and SMS sender webhooks.',
  })
  endpointId: string | null;
  @ApiProperty({ description: 'The `webhook-id` header: the same on every attempt and on redeliveries of it.' })
  webhookId: string;
  @ApiProperty() url: string;
  @ApiProperty({ enum: ['pending', 'delivered', 'failed'] }) status: string;
  @ApiProperty({ type: 'integer', minimum: 0 }) attemptCount: number;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'Set while `pending`.' })
  nextAttemptAt: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) lastHttpStatus: number | null;
  @ApiProperty({ type: 'string', nullable: true }) lastError: string | null;
  @ApiProperty({ type: 'string', format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) completedAt: string | null;
  @ApiProperty({ type: () => WebhookAttempt, isArray: true, description: 'Oldest first.' }) attempts: WebhookAttempt[];
  @ApiLivemode() livemode: boolean;
}

export class WebhookDeliveryPage {
  @ApiProperty({ type: () => WebhookDelivery, isArray: true }) deliveries: WebhookDelivery[];
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Pass as `cursor` (same status) for the next page; null on the last page.',
  })
  nextCursor: string | null;
  @ApiProperty() hasMore: boolean;
}

export class EventEndpoint {
  @ApiProperty({ example: 'wep_01jd8x2k4m7q9r3t5v8w2y4z' }) id: string;
  @ApiProperty({ format: 'uri' }) url: string;
  @ApiProperty({ type: 'string', isArray: true }) events: string[];
  @ApiProperty({ type: 'string', nullable: true }) description: string | null;
  @ApiProperty({ type: 'string', enum: ['enabled', 'disabled'] }) status: string;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Why the service disabled it (null when enabled or disabled by you).',
  })
  disabledReason: string | null;
  @ApiProperty({ type: 'string', format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: 'string', format: 'date-time' }) updatedAt: string;
  @ApiLivemode() livemode: boolean;
}

export class EventEndpointWithSecret extends EventEndpoint {
  @ApiProperty({
    description: 'Signing secret (`whsec_` + base64 of 32 bytes), shown only on creation and rotation.',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw/ZxYbTlyUtQ=',
  })
  secret: string;
}

export class EventEndpointEnvelope {
  @ApiProperty({ type: () => EventEndpoint }) endpoint: EventEndpoint;
}

export class EventEndpointSecretEnvelope {
  @ApiProperty({ type: () => EventEndpointWithSecret }) endpoint: EventEndpointWithSecret;
}

export class EventEndpointList {
  @ApiProperty({ type: () => EventEndpoint, isArray: true, description: 'Oldest first.' }) endpoints: EventEndpoint[];
}

export class EventEndpointTestQueued {
  @ApiProperty({ description: 'See GET /webhooks/deliveries.' }) deliveryId: string;
}

export class RedeliveryEnvelope {
  @ApiProperty({ type: () => WebhookDelivery }) delivery: WebhookDelivery;
}
