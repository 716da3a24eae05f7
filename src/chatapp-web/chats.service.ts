import { Injectable } from '@nestjs/common';
import { CursorCodec } from '../common/cursor';
import { ApiError } from '../common/errors';
import { ProviderError } from '../providers/provider.types';
import { ChatsQuery } from './dto/chats-query';
import { ProviderChat } from './providers/web-session-provider';
import { WebSessionProviders } from './providers/web-session-providers';
import { WebSessionsService } from './web-sessions.service';
import { conversationKey } from './web-session.types';

export interface ChatView {
  accountId: string;
  chatId: string;
  kind: string;
  title: string;
  phoneNumber: string | null;
  conversationKey: string;
  conversationContext: { moduleType: 'chatapp_web' | 'messaging_bot'; accountId: string; chatId: string };
}

export interface ChatPageView {
  accountId: string;
  chats: ChatView[];
  nextCursor: string | null;
  hasMore: boolean;
}

/** GET /api/v2/chatapp-web/chats: one page of a session's chats, live from its provider. */
@Injectable()
export class ChatsService {
  constructor(
    private readonly sessions: WebSessionsService,
    private readonly providers: WebSessionProviders,
    private readonly cursors: CursorCodec,
  ) {}

  async list(accountId: string, q: ChatsQuery): Promise<ChatPageView> {
    const session = await this.sessions.findOwned(accountId, q.accountId);
    // Scoped to account, session and filter: a cursor of another listing is refused, not misread.
    const scope = `chatapp-web-chats:${accountId}:${session.id}:${q.type}`;
    const position = this.cursors.decode<{ f?: unknown }>(scope, q.cursor);
    const from = position === null ? 0 : position.f;
    if (typeof from !== 'number' || !Number.isInteger(from) || from < 0) throw ApiError.validation('cursor is invalid');

    const provider = this.providers.get(session.provider);
    const page = await this.call(async () => {
      const status = await provider.status(session);
      await this.sessions.setStatus(session, status);
      if (status !== 'ready') throw new ApiError('SESSION_NOT_READY', `Web session ${session.name} is not ready (status ${status})`);
      return provider.listChats(session, { type: q.type, limit: q.limit, from });
    });
    return {
      accountId: session.name,
      chats: page.chats.map((c) => this.map(session.name, session.kind === 'bot' ? 'messaging_bot' : 'chatapp_web', c)),
      nextCursor: page.next === null ? null : this.cursors.encode(scope, { f: page.next }),
      hasMore: page.next !== null,
    };
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      if (err.kind === 'failed') throw new ApiError('PROVIDER_ERROR', err.message);
      throw new ApiError('PROVIDER_UNAVAILABLE', err.message);
    }
  }

  // The context is copied into the send route, whose moduleType must name the channel: bots say messaging_bot.
  private map(sessionName: string, moduleType: ChatView['conversationContext']['moduleType'], c: ProviderChat): ChatView {
    return {
      accountId: sessionName,
      chatId: c.chatId,
      kind: c.kind,
      title: c.title,
      phoneNumber: c.phoneNumber,
      conversationKey: conversationKey(sessionName, c.chatId),
      conversationContext: { moduleType, accountId: sessionName, chatId: c.chatId },
    };
  }
}
