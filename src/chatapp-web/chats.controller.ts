import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { RequirePermissions } from '../auth/decorators';
import { ChatPageView, ChatsService } from './chats.service';
import { parseChatsQuery } from './dto/chats-query';

@ApiTags('chatapp-web')
@Controller('api/v2/chatapp-web/chats')
export class ChatsController {
  constructor(private readonly chats: ChatsService) {}

  @Get()
  @RequirePermissions('messages:read')
  @ApiOperation({ summary: 'List the chats of a web session (or messaging bot) owned by the caller' })
  @ApiQuery({ name: 'accountId', required: true, description: 'Web-session name or messaging-bot id' })
  @ApiQuery({ name: 'type', required: false, enum: ['all', 'direct', 'group'] })
  @ApiQuery({ name: 'limit', required: false, description: '1 to 50, default 20' })
  @ApiQuery({ name: 'cursor', required: false })
  async list(@CurrentAuth() auth: AuthContext, @Query() query: Record<string, unknown>): Promise<{ success: true; data: ChatPageView }> {
    return { success: true, data: await this.chats.list(auth.accountId, parseChatsQuery(query)) };
  }
}
