import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { RequirePermissions, RequireVerifiedPhone } from '../auth/decorators';
import { ListMessagesQuery, SendMessageBodyDoc } from './dto/messages.dto';
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
