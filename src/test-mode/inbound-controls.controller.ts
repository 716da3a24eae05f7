import { Body, Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { OwnerOnly, TestModeOnly } from '../auth/decorators';
import { InboundAccepted, WEB_SESSION_EXAMPLE, WebSessionResult } from '../chatapp-web/dto/web-session.response';
import type { InboundResult } from '../chatapp-web/inbound/inbound.types';
import type { WebSessionView } from '../chatapp-web/web-session.types';
import { ApiErrors, ApiSuccess } from '../common/openapi';
import { INBOUND_SMS_EXAMPLE, InboundSmsItem } from '../senders/inbound-sms/dto/inbound-sms.response';
import {
  CreateTestWebSessionRequest,
  SimulateInboundSmsRequest,
  SimulateWebInboundRequest,
} from './dto/controls.request';
import { TestInboundSmsResult } from './dto/controls.response';
import { InboundControlsService } from './inbound-controls.service';

type Ok<T> = { success: true; data: T };

@ApiTags('test-mode')
@TestModeOnly()
@OwnerOnly()
@Controller('api/v2/test')
export class InboundControlsController {
  constructor(private readonly controls: InboundControlsService) {}

  @Post('inbound/sms')
  @HttpCode(201)
  @ApiOperation({
    operationId: 'testSimulateInboundSms',
    summary: "Test mode: an SMS from a number to one of the test mode's approved SMS senders",
    description:
      "Test owner key only. Handled as an SMS from the SMSC: opt-out and opt-in keywords (STOP, START...) change the test mode's suppression list and emit `recipient.opted_out` / `recipient.opted_in`, HELP is answered, and `sms.received` is emitted; the live account is never touched. " +
      '`to` must be an approved sender of the test mode (request one, then approve it with POST /api/v2/test/sms-senders/{id}/approve); without `to`, the default sender: 400 SENDER_NOT_APPROVED otherwise.',
  })
  @ApiSuccess(201, TestInboundSmsResult, {
    description: 'Stored.',
    example: { success: true, data: { inboundSms: { ...INBOUND_SMS_EXAMPLE, livemode: false } } },
  })
  @ApiErrors('VALIDATION_ERROR', 'SENDER_NOT_APPROVED')
  async inboundSms(
    @CurrentAuth() auth: AuthContext,
    @Body() dto: SimulateInboundSmsRequest,
  ): Promise<Ok<{ inboundSms: InboundSmsItem }>> {
    return { success: true, data: { inboundSms: await this.controls.inboundSms(auth.accountId, dto) } };
  }

  @Post('web-sessions')
  @ApiOperation({
    operationId: 'testCreateWebSession',
    summary: 'Test mode: a linked sandbox web session (created once; 200 when it exists)',
    description:
      'Test owner key only. The session is `ready` on the sandbox (never WAHA), with generated chats, so chatapp_web sends (`session`), the chats listing and inbound messages work in test mode. Asking again for the same name answers the session as it is (200).',
  })
  @ApiSuccess(201, WebSessionResult, {
    description: 'Created.',
    example: { success: true, data: { webSession: WEB_SESSION_EXAMPLE } },
  })
  @ApiSuccess(200, WebSessionResult, {
    description: 'The session of that name already existed.',
    example: { success: true, data: { webSession: WEB_SESSION_EXAMPLE } },
  })
  @ApiErrors('VALIDATION_ERROR')
  async webSession(
    @CurrentAuth() auth: AuthContext,
    @Body() dto: CreateTestWebSessionRequest,
    @Res({ passthrough: true }) res: Response,
  ): Promise<Ok<{ webSession: WebSessionView }>> {
    const { webSession, created } = await this.controls.webSession(auth.accountId, dto.name);
    res.status(created ? 201 : 200);
    return { success: true, data: { webSession } };
  }

  @Post('web-sessions/:name/inbound')
  @HttpCode(201)
  @ApiOperation({
    operationId: 'testSimulateWebInbound',
    summary: "Test mode: a contact's message on a test web session",
    description:
      "Test owner key only. Handled as a provider's inbound message: STOP-like keywords opt the number out of the test mode's chatapp_web messages, and `chatapp_web.message.received` goes to the test mode's web-session webhook (`status: queued`, or `skipped` without one) and event endpoints. An unknown session: 404 NOT_FOUND.",
  })
  @ApiParam({
    name: 'name',
    description: 'A web session of the test mode.',
    schema: { type: 'string', maxLength: 100 },
  })
  @ApiSuccess(201, InboundAccepted, {
    description: 'Stored, and queued for the web-session webhook or skipped.',
    example: {
      success: true,
      data: {
        accepted: true,
        dropped: null,
        status: 'queued',
        deliveryId: 'whd_01JD0Q8Y4C7M2X',
        remoteMessageId: 'wmsg_01JD0Q8Y4C7M2X',
      },
    },
  })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND')
  async webInbound(
    @CurrentAuth() auth: AuthContext,
    @Param('name') name: string,
    @Body() dto: SimulateWebInboundRequest,
  ): Promise<Ok<InboundResult>> {
    return { success: true, data: await this.controls.webInboundMessage(auth.accountId, name, dto) };
  }
}
