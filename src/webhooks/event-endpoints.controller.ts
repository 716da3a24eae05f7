import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { OwnerOnly } from '../auth/decorators';
import { ApiErrors, ApiSuccess } from '../common/openapi';
import { CreateEventEndpointDto, UpdateEventEndpointDto } from './dto/event-endpoint.dto';
import {
  EventEndpointEnvelope,
  EventEndpointList,
  EventEndpointSecretEnvelope,
  EventEndpointTestQueued,
  WebhookDeleted,
} from './dto/webhook.response';
import { EventEndpointsService, EventEndpointView, EventEndpointWithSecretView } from './event-endpoints.service';

type Ok<T> = { success: true; data: T };

const ENDPOINT = {
  id: 'wep_01jd8x2k4m7q9r3t5v8w2y4z',
  url: 'https://example.com/hooks/events',
  events: ['message.*', 'bulk_job.completed'],
  description: 'Order system',
  status: 'enabled',
  disabledReason: null,
  createdAt: '2024-11-19T10:15:00.000Z',
  updatedAt: '2024-11-19T10:15:00.000Z',
  livemode: true,
};
const WITH_SECRET = {
  success: true,
  data: { endpoint: { ...ENDPOINT, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw/ZxYbTlyUtQ=' } },
};

@ApiTags('webhooks')
@Controller('api/v2/webhooks/endpoints')
export class EventEndpointsController {
  constructor(private readonly endpoints: EventEndpointsService) {}

  @Post()
  @HttpCode(201)
  @OwnerOnly()
  @ApiOperation({
    operationId: 'createWebhookEndpoint',
    summary: 'Subscribe a URL to events',
    description:
      'Owner key only. The signing secret is shown only in this answer (and on rotation). Each event is a POST of ' +
      '`{ type, timestamp, livemode, data }` signed to the Standard Webhooks spec (`webhook-id`, `webhook-timestamp`, ' +
      '`webhook-signature`), with the header `webhook-mode: live` or `webhook-mode: test`. An endpoint created with a ' +
      'test key (`msk_test_...`) gets only the events of test mode (`livemode: false`); a live one never gets them.',
  })
  @ApiSuccess(201, EventEndpointSecretEnvelope, {
    description: 'The endpoint with its signing secret',
    example: WITH_SECRET,
  })
  @ApiErrors('VALIDATION_ERROR')
  async create(
    @CurrentAuth() auth: AuthContext,
    @Body() dto: CreateEventEndpointDto,
  ): Promise<Ok<{ endpoint: EventEndpointWithSecretView }>> {
    return { success: true, data: { endpoint: await this.endpoints.create(auth.accountId, dto) } };
  }

  @Get()
  @OwnerOnly()
  @ApiOperation({
    operationId: 'listWebhookEndpoints',
    summary: 'Event endpoints of the account',
    description: 'Owner key only.',
  })
  @ApiSuccess(200, EventEndpointList, {
    description: 'Every endpoint, oldest first',
    example: { success: true, data: { endpoints: [ENDPOINT] } },
  })
  async list(@CurrentAuth() auth: AuthContext): Promise<Ok<{ endpoints: EventEndpointView[] }>> {
    return { success: true, data: { endpoints: await this.endpoints.list(auth.accountId) } };
  }

  @Get(':id')
  @OwnerOnly()
  @ApiOperation({ operationId: 'getWebhookEndpoint', summary: 'One event endpoint', description: 'Owner key only.' })
  @ApiSuccess(200, EventEndpointEnvelope, {
    description: 'The endpoint',
    example: { success: true, data: { endpoint: ENDPOINT } },
  })
  @ApiErrors('NOT_FOUND')
  async get(@CurrentAuth() auth: AuthContext, @Param('id') id: string): Promise<Ok<{ endpoint: EventEndpointView }>> {
    return { success: true, data: { endpoint: await this.endpoints.get(auth.accountId, id) } };
  }

  @Patch(':id')
  @OwnerOnly()
  @ApiOperation({
    operationId: 'updateWebhookEndpoint',
    summary: 'Change an event endpoint (url, events, description, status)',
    description: 'Owner key only.',
  })
  @ApiSuccess(200, EventEndpointEnvelope, {
    description: 'The endpoint as changed',
    example: { success: true, data: { endpoint: ENDPOINT } },
  })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND')
  async update(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
    @Body() dto: UpdateEventEndpointDto,
  ): Promise<Ok<{ endpoint: EventEndpointView }>> {
    return { success: true, data: { endpoint: await this.endpoints.update(auth.accountId, id, dto) } };
  }

  @Delete(':id')
  @OwnerOnly()
  @ApiOperation({
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete an event endpoint',
    description: 'Owner key only. Its pending deliveries fail.',
  })
  @ApiSuccess(200, WebhookDeleted, { description: 'Deleted', example: { success: true, data: { deleted: true } } })
  @ApiErrors('NOT_FOUND')
  async remove(@CurrentAuth() auth: AuthContext, @Param('id') id: string): Promise<Ok<{ deleted: true }>> {
    await this.endpoints.remove(auth.accountId, id);
    return { success: true, data: { deleted: true } };
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @OwnerOnly()
  @ApiOperation({
    operationId: 'rotateWebhookEndpointSecret',
    summary: 'Generate a new signing secret',
    description:
      'Owner key only. For 24 hours the old secret keeps signing alongside the new one (two signatures in `webhook-signature`).',
  })
  @ApiSuccess(200, EventEndpointSecretEnvelope, {
    description: 'The endpoint with its new secret',
    example: WITH_SECRET,
  })
  @ApiErrors('NOT_FOUND')
  async rotate(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
  ): Promise<Ok<{ endpoint: EventEndpointWithSecretView }>> {
    return { success: true, data: { endpoint: await this.endpoints.rotateSecret(auth.accountId, id) } };
  }

  @Post(':id/test')
  @HttpCode(202)
  @OwnerOnly()
  @ApiOperation({
    operationId: 'testWebhookEndpoint',
    summary: 'Queue a webhook.test event to the endpoint',
    description: 'Owner key only. Follow it in GET /webhooks/deliveries?endpointId=.',
  })
  @ApiSuccess(202, EventEndpointTestQueued, {
    description: 'Queued',
    example: { success: true, data: { deliveryId: 'whd_01jd8x2k4m7q9r3t5v8w2y4z' } },
  })
  @ApiErrors('NOT_FOUND', 'INVALID_STATE')
  async test(@CurrentAuth() auth: AuthContext, @Param('id') id: string): Promise<Ok<{ deliveryId: string }>> {
    return { success: true, data: await this.endpoints.sendTest(auth.accountId, id) };
  }
}
