import { Body, Controller, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../auth/decorators';
import { CreateWebSessionDto, UpdateWebSessionDto } from './dto/create-web-session.dto';
import { SandboxInboundDto } from './dto/sandbox-inbound.dto';
import { InboundAccepted, WEB_SESSION_EXAMPLE, WebSessionResult } from './dto/web-session.response';
import { ApiErrors, ApiSuccess } from '../common/openapi';
import { InboundMessagesService } from './inbound/inbound-messages.service';
import { InboundResult } from './inbound/inbound.types';
import { WebSessionsService } from './web-sessions.service';
import { WebSessionView } from './web-session.types';
import { accountIdOf } from '../common/account-id';

@ApiTags('admin')
@AdminOnly()
@Controller('admin/v1/accounts/:id/web-sessions')
export class AdminWebSessionsController {
  constructor(
    private readonly sessions: WebSessionsService,
    private readonly inbound: InboundMessagesService,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'adminCreateWebSession',
    summary: 'Create a web session or bot id (sandbox: with its chats, 120 generated when omitted)',
  })
  @ApiSuccess(201, WebSessionResult, {
    description: 'Created',
    example: { success: true, data: { webSession: WEB_SESSION_EXAMPLE } },
  })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND', 'CONFLICT')
  async create(
    @Param('id') id: string,
    @Body() dto: CreateWebSessionDto,
  ): Promise<{ success: true; data: { webSession: WebSessionView } }> {
    return { success: true, data: { webSession: await this.sessions.create(accountIdOf(id), dto) } };
  }

  @Patch(':name')
  @ApiOperation({ operationId: 'adminUpdateWebSession', summary: 'Set the status of a web session (sandbox control)' })
  @ApiSuccess(200, WebSessionResult, {
    description: 'Updated',
    example: { success: true, data: { webSession: { ...WEB_SESSION_EXAMPLE, status: 'stopped' } } },
  })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND')
  async update(
    @Param('id') id: string,
    @Param('name') name: string,
    @Body() dto: UpdateWebSessionDto,
  ): Promise<{ success: true; data: { webSession: WebSessionView } }> {
    return { success: true, data: { webSession: await this.sessions.updateStatus(accountIdOf(id), name, dto.status) } };
  }

  @Post(':name/inbound')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'adminSimulateInboundMessage',
    summary: 'Simulate an inbound message on a session (becomes chatapp_web.message.received unless dropped)',
  })
  @ApiSuccess(202, InboundAccepted, {
    description: 'Stored and queued for the webhook, or dropped',
    example: {
      success: true,
      data: {
        accepted: true,
        dropped: null,
        status: 'queued',
        deliveryId: 'whd_01JD0Q8Y4C7M2X',
        remoteMessageId: 'wamid.HBgM',
      },
    },
  })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND')
  async receive(
    @Param('id') id: string,
    @Param('name') name: string,
    @Body() dto: SandboxInboundDto,
  ): Promise<{ success: true; data: InboundResult }> {
    return {
      success: true,
      data: await this.inbound.receive(await this.sessions.findOwned(accountIdOf(id), name), dto),
    };
  }
}
