import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { OwnerOnly, RequirePermissions } from '../auth/decorators';
import { ApiErrors, ApiSuccess } from '../common/openapi';
import { ListDeliveriesQuery, PutWebhookDto } from './dto/webhook-settings.dto';
import {
  RedeliveryEnvelope,
  WebhookDeleted,
  WebhookDeliveryPage,
  WebhookSettings,
  WebhookTestQueued,
} from './dto/webhook.response';
import { DeliveryPage, WebhookDeliveriesService, WebhookDeliveryView } from './webhook-deliveries.service';
import { WebhookSettingsService, WebhookSettingsView } from './webhook-settings.service';

type Ok<T> = { success: true; data: T };

const URL_EXAMPLE = 'https://example.com/hooks/chatapp-web';
const FULL_KEY = { success: true, data: { url: URL_EXAMPLE, webhookApiKey: 'whk_Xb3kQ9vT2mN7pL4sR8wY1zC6dF0hJ5aE' } };
const MASKED_KEY = { success: true, data: { url: URL_EXAMPLE, webhookApiKey: 'whk_****J5aE' } };
const DELIVERY_ID = 'whd_01jd8x2k4m7q9r3t5v8w2y4z';

@ApiTags('webhooks')
@Controller('api/v2/webhooks')
export class WebhooksController {
  constructor(
    private readonly settings: WebhookSettingsService,
    private readonly deliveries: WebhookDeliveriesService,
  ) {}

  @Put('chatapp-web')
  @HttpCode(200)
  @OwnerOnly()
  @ApiOperation({
    operationId: 'setWebSessionWebhook',
    summary: 'Set the web-session webhook URL',
    description:
      'Owner key only. The first call generates the webhook key and shows it in full; later calls change the URL and show the key masked. ' +
      'Events are a POST of `{ event, timestamp, livemode, data }` (`livemode: false` for test mode) with the header ' +
      '`webhook-mode: live` or `webhook-mode: test`.',
  })
  @ApiSuccess(200, WebhookSettings, { description: 'The URL and the key (in full on first set)', example: FULL_KEY })
  @ApiErrors('VALIDATION_ERROR')
  async put(@CurrentAuth() auth: AuthContext, @Body() dto: PutWebhookDto): Promise<Ok<WebhookSettingsView>> {
    return { success: true, data: await this.settings.put(auth.accountId, dto.url) };
  }

  @Get('chatapp-web')
  @OwnerOnly()
  @ApiOperation({
    operationId: 'getWebSessionWebhook',
    summary: 'The web-session webhook URL and its masked key',
    description: 'Owner key only.',
  })
  @ApiSuccess(200, WebhookSettings, { description: 'The URL and the masked key', example: MASKED_KEY })
  @ApiErrors('NOT_FOUND')
  async get(@CurrentAuth() auth: AuthContext): Promise<Ok<WebhookSettingsView>> {
    return { success: true, data: await this.settings.get(auth.accountId) };
  }

  @Delete('chatapp-web')
  @OwnerOnly()
  @ApiOperation({
    operationId: 'deleteWebSessionWebhook',
    summary: 'Remove the web-session webhook',
    description: 'Owner key only.',
  })
  @ApiSuccess(200, WebhookDeleted, { description: 'Removed', example: { success: true, data: { deleted: true } } })
  @ApiErrors('NOT_FOUND')
  async remove(@CurrentAuth() auth: AuthContext): Promise<Ok<{ deleted: true }>> {
    await this.settings.remove(auth.accountId);
    return { success: true, data: { deleted: true } };
  }

  @Post('chatapp-web/rotate-key')
  @HttpCode(200)
  @OwnerOnly()
  @ApiOperation({
    operationId: 'rotateWebSessionWebhookKey',
    summary: 'Generate a new webhook key (shown in full once)',
    description: 'Owner key only. The old key stops being sent at once.',
  })
  @ApiSuccess(200, WebhookSettings, { description: 'The URL and the new key in full', example: FULL_KEY })
  @ApiErrors('NOT_FOUND')
  async rotate(@CurrentAuth() auth: AuthContext): Promise<Ok<WebhookSettingsView>> {
    return { success: true, data: await this.settings.rotateKey(auth.accountId) };
  }

  @Post('chatapp-web/test')
  @HttpCode(202)
  @OwnerOnly()
  @ApiOperation({
    operationId: 'testWebSessionWebhook',
    summary: 'Queue a webhook.test event to the configured URL',
    description: 'Owner key only. Follow it in GET /webhooks/deliveries.',
  })
  @ApiSuccess(202, WebhookTestQueued, {
    description: 'Queued',
    example: { success: true, data: { deliveryId: DELIVERY_ID, event: 'webhook.test' } },
  })
  @ApiErrors('NOT_FOUND')
  async test(@CurrentAuth() auth: AuthContext): Promise<Ok<{ deliveryId: string; event: string }>> {
    return { success: true, data: await this.settings.sendTest(auth.accountId) };
  }

  @Get('deliveries')
  @RequirePermissions('messages:read')
  @ApiOperation({
    operationId: 'listWebhookDeliveries',
    summary: 'Webhook deliveries of the account, newest first, with their attempts',
  })
  @ApiSuccess(200, WebhookDeliveryPage, {
    description: 'One page of deliveries',
    example: {
      success: true,
      data: {
        deliveries: [
          {
            id: DELIVERY_ID,
            event: 'webhook.test',
            endpointId: null,
            webhookId: DELIVERY_ID,
            url: URL_EXAMPLE,
            status: 'delivered',
            attemptCount: 1,
            nextAttemptAt: null,
            lastHttpStatus: 200,
            lastError: null,
            createdAt: '2024-11-19T10:15:00.000Z',
            completedAt: '2024-11-19T10:15:00.412Z',
            attempts: [
              {
                attempt: 1,
                at: '2024-11-19T10:15:00.120Z',
                httpStatus: 200,
                durationMs: 292,
                success: true,
                error: null,
              },
            ],
            livemode: true,
          },
        ],
        nextCursor: null,
        hasMore: false,
      },
    },
  })
  @ApiErrors('VALIDATION_ERROR')
  async list(@CurrentAuth() auth: AuthContext, @Query() q: ListDeliveriesQuery): Promise<Ok<DeliveryPage>> {
    return {
      success: true,
      data: await this.deliveries.list(auth.accountId, {
        status: q.status,
        endpointId: q.endpointId,
        event: q.event,
        cursor: q.cursor,
        limit: q.limit ?? 20,
      }),
    };
  }

  @Post('deliveries/:id/redeliver')
  @HttpCode(202)
  @OwnerOnly()
  @ApiOperation({
    operationId: 'redeliverWebhookDelivery',
    summary: 'Send a delivery again (a new series of attempts, same webhook-id)',
    description: "Owner key only. The answer is the new delivery; its `webhookId` is the original's.",
  })
  @ApiSuccess(202, RedeliveryEnvelope, {
    description: 'The new delivery, pending',
    example: {
      success: true,
      data: {
        delivery: {
          id: 'whd_01jd8y0000q9r3t5v8w2y4z0',
          event: 'message.delivered',
          endpointId: 'wep_01jd8x2k4m7q9r3t5v8w2y4z',
          webhookId: DELIVERY_ID,
          url: 'https://example.com/hooks/events',
          status: 'pending',
          attemptCount: 0,
          nextAttemptAt: '2024-11-19T11:00:00.000Z',
          lastHttpStatus: null,
          lastError: null,
          createdAt: '2024-11-19T11:00:00.000Z',
          completedAt: null,
          attempts: [],
          livemode: true,
        },
      },
    },
  })
  @ApiErrors('NOT_FOUND', 'INVALID_STATE')
  async redeliver(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
  ): Promise<Ok<{ delivery: WebhookDeliveryView }>> {
    return { success: true, data: { delivery: await this.deliveries.redeliver(auth.accountId, id) } };
  }
}
