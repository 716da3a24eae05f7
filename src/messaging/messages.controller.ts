import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { RequirePermissions, RequireVerifiedPhone } from '../auth/decorators';
import { ApiErrors, ApiSuccess } from '../common/openapi';
import { SendMessageRequest } from './dto/message.request';
import { CancelledMessage, MessageDetail, MessageList, SendMessageResult } from './dto/message.response';
import { ListMessagesQuery } from './dto/messages.dto';
import { CANCELLED_EXAMPLE, LIST_EXAMPLE, MESSAGE_DETAIL_EXAMPLE, SEND_EXAMPLE } from './dto/messages.examples';
import { MessageView } from './message-view';
import { MessageDetailView, MessagesService, SentMessageView } from './messages.service';
import { ScheduledCancelService } from './scheduled/scheduled-cancel.service';

const MessageIdParam = () =>
  ApiParam({
    name: 'id',
    description: 'Message id from the send response or the log.',
    schema: { type: 'string', maxLength: 80 },
    example: 'msg_01jd0r8m6f3q9w2k4x7b5c8v1n',
  });

@ApiTags('messages')
@Controller('api/v2/messages')
export class MessagesController {
  constructor(
    private readonly messages: MessagesService,
    private readonly scheduled: ScheduledCancelService,
  ) {}

  @Post('send')
  @HttpCode(201)
  @RequirePermissions('messages:create')
  @RequireVerifiedPhone()
  @ApiOperation({
    operationId: 'sendMessage',
    summary: 'Send one message, or one content to up to 100 recipients',
    description:
      'Validates every recipient, pays for all of them (free messages, then plan quota, then wallet) or answers 402 with nothing taken, then hands each to the channel provider. ' +
      'A provider rejection is an outcome (`failed`, PROVIDER_REJECTED, refunded); a provider error on a single send is refunded and answered as 429/502/503. ' +
      'With `scheduleAt` the message is paid now and sent later. Needs `messages:create` and a verified account phone.',
  })
  @ApiBody({ type: SendMessageRequest })
  @ApiSuccess(201, SendMessageResult, {
    description: 'One result per recipient: sent, scheduled, queued, or failed (refunded).',
    example: SEND_EXAMPLE,
  })
  @ApiErrors(
    'VALIDATION_ERROR',
    'INVALID_RECIPIENT',
    'DESTINATION_NOT_ALLOWED',
    'SENDER_NOT_ALLOWED',
    'LINK_DOMAIN_NOT_ALLOWED',
    'RECIPIENT_OPTED_OUT',
    'INVALID_CHANNEL',
    'INVALID_MESSAGE_TYPE',
    'INVALID_CONTENT',
    'SENDER_NOT_APPROVED',
    'TEMPLATE_NOT_FOUND',
    'TEMPLATE_NOT_USABLE',
    'TEMPLATE_VARIABLES_MISMATCH',
    'INVALID_SCHEDULE',
    'INVALID_ATTACHMENT',
    'INSUFFICIENT_BALANCE',
    'SUBSCRIPTION_INACTIVE',
    'NOT_FOUND',
    'SESSION_NOT_READY',
    'PROVIDER_RATE_LIMITED',
    'PROVIDER_ERROR',
    'PROVIDER_UNAVAILABLE',
  )
  async send(
    @CurrentAuth() auth: AuthContext,
    @Body() body: unknown,
  ): Promise<{ success: true; data: { messages: SentMessageView[] } }> {
    return { success: true, data: { messages: await this.messages.send(auth.account, body) } };
  }

  @Get()
  @RequirePermissions('messages:read')
  @ApiOperation({
    operationId: 'listMessages',
    summary: 'Read the message log, newest first (or by last change)',
    description:
      'Cursor pagination; filters by status, channel, bulk job and `updatedSince`. `order=updated` lists the least recently changed first, so a client can reconcile statuses by polling.',
  })
  @ApiSuccess(200, MessageList, { description: 'One page of the message log.', example: LIST_EXAMPLE })
  @ApiErrors('VALIDATION_ERROR')
  async list(
    @CurrentAuth() auth: AuthContext,
    @Query() q: ListMessagesQuery,
  ): Promise<{ success: true; data: { messages: MessageView[]; nextCursor: string | null; hasMore: boolean } }> {
    const page = await this.messages.list(auth.accountId, q);
    return { success: true, data: { messages: page.items, nextCursor: page.nextCursor, hasMore: page.hasMore } };
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @RequirePermissions('messages:create')
  @ApiOperation({
    operationId: 'cancelMessage',
    summary: 'Cancel a scheduled message and refund it',
    description:
      'Only a `scheduled` message that no sender has taken yet: it becomes `cancelled` (final) and its payment goes back to the source it came from (free messages, plan quota or wallet). ' +
      "A message being sent, sent, failed or already cancelled: 409 INVALID_STATE (cancelling twice is 409, never a second refund). Another account's message: 404. Needs `messages:create`.",
  })
  @MessageIdParam()
  @ApiSuccess(200, CancelledMessage, { description: 'The cancelled message.', example: CANCELLED_EXAMPLE })
  @ApiErrors('NOT_FOUND', 'INVALID_STATE')
  async cancel(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
  ): Promise<{ success: true; data: { message: MessageView } }> {
    return { success: true, data: { message: await this.scheduled.cancel(auth.accountId, id) } };
  }

  @Get(':id')
  @RequirePermissions('messages:read')
  @ApiOperation({
    operationId: 'getMessage',
    summary: 'Read one message of the message log',
    description: 'The message and its status history (every status it reached, from our API or a provider receipt).',
  })
  @MessageIdParam()
  @ApiSuccess(200, MessageDetail, {
    description: 'The message and its status history.',
    example: MESSAGE_DETAIL_EXAMPLE,
  })
  @ApiErrors('NOT_FOUND')
  async get(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
  ): Promise<{ success: true; data: MessageDetailView }> {
    return { success: true, data: await this.messages.get(auth.accountId, id) };
  }
}
