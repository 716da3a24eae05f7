import { Injectable } from '@nestjs/common';
import { isLiveAccount } from '../accounts/account-mode';
import { CursorCodec } from '../common/cursor';
import { ApiError } from '../common/errors';
import { toApiError } from '../providers/provider-errors';
import { ProviderError } from '../providers/provider.types';
import { ChatsQuery } from './dto/chats-query';
import type { WebSessionEntity } from './entities/web-session.entity';
import { ChatPage, ChatPageRequest, ProviderChat, WebSessionProvider } from './providers/web-session-provider';
import { WebSessionProviders } from './providers/web-session-providers';
import { WebSessionsService } from './web-sessions.service';
import { conversationKey } from './web-session.types';
import type { AccountId } from '../common/account-id';

export interface ChatView {
  accountId: string;
  chatId: string;
  kind: string;
  title: string;
  phoneNumber: string | null;
  conversationKey: string;
  conversationContext: { moduleType: 'chatapp_web'; accountId: string; chatId: string };
  livemode: boolean;
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

  async list(accountId: AccountId, q: ChatsQuery): Promise<ChatPageView> {
    const session = await this.sessions.findOwned(accountId, q.accountId);
    // Scoped to account, session and filter: a cursor of another listing is refused, not misread.
    const scope = `chatapp-web-chats:${accountId}:${session.id}:${q.type}`;
    const position = this.cursors.decode<{ f?: unknown }>(scope, q.cursor);
    const from = position === null ? 0 : position.f;
    if (typeof from !== 'number' || !Number.isInteger(from) || from < 0) throw ApiError.validation('cursor is invalid');

    const provider = this.providers.forSession(session);
    const page = await this.liveChats(session, provider, { type: q.type, limit: q.limit, from });
    return {
      accountId: session.name,
      chats: page.chats.map((c) => this.map(session, c)),
      nextCursor: page.next === null ? null : this.cursors.encode(scope, { f: page.next }),
      hasMore: page.next !== null,
    };
  }

  /** Live status first (stored as seen), then the page; provider faults become the providers' API errors. */
  private async liveChats(
    session: WebSessionEntity,
    provider: WebSessionProvider,
    page: ChatPageRequest,
  ): Promise<ChatPage> {
    try {
      const status = await provider.status(session);
      await this.sessions.setStatus(session, status);
      if (status !== 'ready')
        throw new ApiError('SESSION_NOT_READY', `Web session ${session.name} is not ready (status ${status})`);
      return await provider.listChats(session, page);
    } catch (err) {
      // Only provider faults are mapped: anything else (a database error, a bug) stays a 500.
      throw err instanceof ProviderError ? toApiError(err) : err;
    }
  }

  // The spec's context is always moduleType "chatapp_web", bot ids included; the send route accepts it
  // on both chat channels and checks the session's kind against the channel.
  private map(session: WebSessionEntity, c: ProviderChat): ChatView {
    const sessionName = session.name;
    return {
      accountId: sessionName,
      chatId: c.chatId,
      kind: c.kind,
      title: c.title,
      phoneNumber: c.phoneNumber,
      conversationKey: conversationKey(sessionName, c.chatId),
      conversationContext: { moduleType: 'chatapp_web', accountId: sessionName, chatId: c.chatId },
      livemode: isLiveAccount(session.accountId),
    };
  }
}
