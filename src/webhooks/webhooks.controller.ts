import { Body, Controller, Delete, Get, HttpCode, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { OwnerOnly, RequirePermissions } from '../auth/decorators';
import { ListDeliveriesQuery, PutWebhookDto } from './dto/webhook-settings.dto';
import { DeliveryPage, WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookSettingsService, WebhookSettingsView } from './webhook-settings.service';

type Ok<T> = { success: true; data: T };

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
  @ApiOperation({ summary: 'Set the web-session webhook URL (the key is generated and shown in full on first set)' })
  async put(@CurrentAuth() auth: AuthContext, @Body() dto: PutWebhookDto): Promise<Ok<WebhookSettingsView>> {
    return { success: true, data: await this.settings.put(auth.accountId, dto.url) };
  }

  @Get('chatapp-web')
  @OwnerOnly()
  @ApiOperation({ summary: 'The web-session webhook URL and its masked key' })
  async get(@CurrentAuth() auth: AuthContext): Promise<Ok<WebhookSettingsView>> {
    return { success: true, data: await this.settings.get(auth.accountId) };
  }

  @Delete('chatapp-web')
  @OwnerOnly()
  @ApiOperation({ summary: 'Remove the web-session webhook' })
  async remove(@CurrentAuth() auth: AuthContext): Promise<Ok<{ deleted: true }>> {
    await this.settings.remove(auth.accountId);
    return { success: true, data: { deleted: true } };
  }

  @Post('chatapp-web/rotate-key')
  @HttpCode(200)
  @OwnerOnly()
  @ApiOperation({ summary: 'Generate a new webhook key (shown in full once)' })
  async rotate(@CurrentAuth() auth: AuthContext): Promise<Ok<WebhookSettingsView>> {
    return { success: true, data: await this.settings.rotateKey(auth.accountId) };
  }

  @Post('chatapp-web/test')
  @HttpCode(202)
  @OwnerOnly()
  @ApiOperation({ summary: 'Queue a webhook.test event to the configured URL' })
  async test(@CurrentAuth() auth: AuthContext): Promise<Ok<{ deliveryId: string; event: string }>> {
    return { success: true, data: await this.settings.sendTest(auth.accountId) };
  }

  @Get('deliveries')
  @RequirePermissions('messages:read')
  @ApiOperation({ summary: 'Webhook deliveries of the account, newest first, with their attempts' })
  async list(@CurrentAuth() auth: AuthContext, @Query() q: ListDeliveriesQuery): Promise<Ok<DeliveryPage>> {
    return { success: true, data: await this.deliveries.list(auth.accountId, { status: q.status, cursor: q.cursor, limit: q.limit ? Number(q.limit) : 20 }) };
  }
}
