import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { RequirePermissions, RequireVerifiedPhone } from '../auth/decorators';
import { ListMessagesQuery, SendMessageBodyDoc, SendMessageResponseDoc } from './dto/messages.dto';
import { MessageView } from './message-view';
import { MessagesService, SentMessageView } from './messages.service';

@ApiTags('messages')
@Controller('api/v2/messages')
export class MessagesController {
  constructor(private readonly messages: MessagesService) {}

  @Post('send')
  @HttpCode(201)
  @RequirePermissions('messages:create')
  @RequireVerifiedPhone()
  @ApiOperation({ summary: 'Send one message, or one content to up to 100 recipients; optional scheduleAt' })
  @ApiBody({ type: SendMessageBodyDoc })
  @ApiResponse({ status: 201, type: SendMessageResponseDoc, description: 'Accepted: sent, scheduled, or failed (PROVIDER_REJECTED) per recipient' })
  @ApiResponse({ status: 400, description: 'VALIDATION_ERROR, INVALID_RECIPIENT, INVALID_CHANNEL, INVALID_MESSAGE_TYPE, INVALID_CONTENT, SENDER_NOT_APPROVED, TEMPLATE_NOT_FOUND, TEMPLATE_NOT_USABLE, TEMPLATE_VARIABLES_MISMATCH, INVALID_SCHEDULE, INVALID_ATTACHMENT' })
  @ApiResponse({ status: 402, description: 'INSUFFICIENT_BALANCE: nothing sent, nothing taken' })
  @ApiResponse({ status: 403, description: 'FORBIDDEN (permission, unverified phone) or SUBSCRIPTION_INACTIVE' })
  @ApiResponse({ status: 404, description: 'NOT_FOUND: web session / bot id of conversationContext' })
  @ApiResponse({ status: 409, description: 'SESSION_NOT_READY' })
  @ApiResponse({ status: 429, description: 'RATE_LIMITED or PROVIDER_RATE_LIMITED (refunded; retryAfterSeconds)' })
  @ApiResponse({ status: 502, description: 'PROVIDER_ERROR (refunded)' })
  @ApiResponse({ status: 503, description: 'PROVIDER_UNAVAILABLE: provider down or timed out (refunded)' })
  async send(@CurrentAuth() auth: AuthContext, @Body() body: unknown): Promise<{ success: true; data: { messages: SentMessageView[] } }> {
    return { success: true, data: { messages: await this.messages.send(auth.account, body) } };
  }

  @Get()
  @RequirePermissions('messages:read')
  @ApiOperation({ summary: 'Message log, newest first; cursor pagination; filters status, channel, bulkJobId' })
  async list(@CurrentAuth() auth: AuthContext, @Query() q: ListMessagesQuery): Promise<{ success: true; data: { messages: MessageView[]; nextCursor: string | null; hasMore: boolean } }> {
    const page = await this.messages.list(auth.accountId, q);
    return { success: true, data: { messages: page.items, nextCursor: page.nextCursor, hasMore: page.hasMore } };
  }

  @Get(':id')
  @RequirePermissions('messages:read')
  @ApiOperation({ summary: 'One message of the message log' })
  async get(@CurrentAuth() auth: AuthContext, @Param('id') id: string): Promise<{ success: true; data: MessageView }> {
    return { success: true, data: await this.messages.get(auth.accountId, id) };
  }
}
