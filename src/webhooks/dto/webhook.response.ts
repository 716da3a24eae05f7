import { ApiProperty } from '@nestjs/swagger';
import { TEST_EVENT } from '../webhook-settings.service';

// Response classes of the webhook routes (WebhookSettingsService, WebhookDeliveriesService.toView).

export class WebhookSettings {
  @ApiProperty({ format: 'uri', example: 'https://example.com/hooks/chatapp-web' }) url: string;
  @ApiProperty({
    description: 'Sent in the X-API-Key header of every delivery. In full (`whk_` + 32 characters) only when just created or rotated; masked (`whk_****abcd`) otherwise.',
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
  @ApiProperty({ type: 'integer', nullable: true, description: 'Null when no HTTP response came (timeout, refused connection).' }) httpStatus: number | null;
  @ApiProperty({ type: 'integer', minimum: 0 }) durationMs: number;
  @ApiProperty() success: boolean;
  @ApiProperty({ type: 'string', nullable: true }) error: string | null;
}

export class WebhookDelivery {
  @ApiProperty() id: string;
  @ApiProperty({ description: 'chatapp_web.message.received, webhook.test, sms_sender.approved or sms_sender.rejected' }) event: string;
  @ApiProperty() url: string;
  @ApiProperty({ enum: ['pending', 'delivered', 'failed'] }) status: string;
  @ApiProperty({ type: 'integer', minimum: 0 }) attemptCount: number;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'Set while `pending`.' }) nextAttemptAt: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) lastHttpStatus: number | null;
  @ApiProperty({ type: 'string', nullable: true }) lastError: string | null;
  @ApiProperty({ type: 'string', format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) completedAt: string | null;
  @ApiProperty({ type: () => WebhookAttempt, isArray: true, description: 'Oldest first.' }) attempts: WebhookAttempt[];
}

export class WebhookDeliveryPage {
  @ApiProperty({ type: () => WebhookDelivery, isArray: true }) deliveries: WebhookDelivery[];
  @ApiProperty({ type: 'string', nullable: true, description: 'Pass as `cursor` (same status) for the next page; null on the last page.' }) nextCursor: string | null;
  @ApiProperty() hasMore: boolean;
}
