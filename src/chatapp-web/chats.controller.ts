import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { RequirePermissions } from '../auth/decorators';
import { ApiErrors, ApiSuccess } from '../common/openapi';
import { ChatPageView, ChatsService } from './chats.service';
import { WebSessionChatPage } from './dto/chat.response';
import { parseChatsQuery } from './dto/chats-query';

@ApiTags('chatapp-web')
@Controller('api/v2/chatapp-web/chats')
export class ChatsController {
  constructor(private readonly chats: ChatsService) {}

  @Get()
  @RequirePermissions('messages:read')
  @ApiOperation({
    operationId: 'listWebSessionChats',
    summary: 'List the chats of a web session (or messaging bot) owned by the caller',
    description:
      'Read live from the provider (keep `limit` low). Each chat carries the `conversationContext` a send request needs.',
  })
  // Checked by parseChatsQuery (any other parameter is a 400 VALIDATION_ERROR).
  @ApiQuery({
    name: 'accountId',
    required: true,
    schema: { type: 'string', minLength: 1, maxLength: 100 },
    description: 'Web-session name or messaging-bot id',
    example: 'support-line',
  })
  @ApiQuery({
    name: 'type',
    required: false,
    schema: { type: 'string', enum: ['all', 'direct', 'group'], default: 'all' },
  })
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 50, default: 20 } })
  @ApiQuery({
    name: 'cursor',
    required: false,
    schema: { type: 'string' },
    description: 'nextCursor of the previous page (same accountId and type)',
  })
  @ApiSuccess(200, WebSessionChatPage, {
    description: 'One page of chats',
    example: {
      success: true,
      data: {
        accountId: 'support-line',
        chats: [
          {
            accountId: 'support-line',
            chatId: '14155550101@c.us',
            kind: 'direct',
            title: 'Ana Silva',
            phoneNumber: '+14155550101',
            conversationKey: 'support-line:14155550101@c.us',
            conversationContext: { moduleType: 'chatapp_web', accountId: 'support-line', chatId: '14155550101@c.us' },
            livemode: true,
          },
        ],
        nextCursor: null,
        hasMore: false,
      },
    },
  })
  @ApiErrors(
    'VALIDATION_ERROR',
    'NOT_FOUND',
    'SESSION_NOT_READY',
    'PROVIDER_RATE_LIMITED',
    'PROVIDER_ERROR',
    'PROVIDER_UNAVAILABLE',
  )
  async list(
    @CurrentAuth() auth: AuthContext,
    @Query() query: Record<string, unknown>,
  ): Promise<{ success: true; data: ChatPageView }> {
    return { success: true, data: await this.chats.list(auth.accountId, parseChatsQuery(query)) };
  }
}
