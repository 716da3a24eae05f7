import { ApiProperty } from '@nestjs/swagger';
import { ApiLivemode } from '../../common/openapi';

// Response classes of GET /api/v2/chatapp-web/chats (ChatsService.list / map).

export class ChatConversationContext {
  @ApiProperty({ type: 'string', enum: ['chatapp_web'], description: 'Always chatapp_web, bot ids included.' })
  moduleType: 'chatapp_web';
  @ApiProperty({ description: 'The web-session name or messaging-bot id.' }) accountId: string;
  @ApiProperty() chatId: string;
}

export class WebSessionChat {
  @ApiProperty({ description: 'The web-session name or messaging-bot id.' }) accountId: string;
  @ApiProperty() chatId: string;
  @ApiProperty({ enum: ['direct', 'group'] }) kind: string;
  @ApiProperty() title: string;
  @ApiProperty({ type: 'string', nullable: true }) phoneNumber: string | null;
  @ApiProperty({ description: 'Stable key of the conversation (session and chat).' }) conversationKey: string;
  @ApiProperty({
    type: () => ChatConversationContext,
    description: 'Copy into a send request (with chatId) to answer in this chat.',
  })
  conversationContext: ChatConversationContext;
  @ApiLivemode() livemode: boolean;
}

export class WebSessionChatPage {
  @ApiProperty({ description: 'The web-session name or messaging-bot id.' }) accountId: string;
  @ApiProperty({ type: () => WebSessionChat, isArray: true }) chats: WebSessionChat[];
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Pass as `cursor` (same accountId and type) for the next page; null on the last page.',
  })
  nextCursor: string | null;
  @ApiProperty() hasMore: boolean;
}
