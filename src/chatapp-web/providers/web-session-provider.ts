import type { WebSessionEntity } from '../entities/web-session.entity';
import type { ChatKind, WebSessionProviderName, WebSessionStatus } from '../web-session.types';

export type ChatTypeFilter = 'all' | 'direct' | 'group';

export interface ProviderChat {
  chatId: string;
  kind: ChatKind;
  title: string;
  phoneNumber: string | null;
}

export interface ChatPageRequest {
  type: ChatTypeFilter;
  limit: number;
  /** Provider-specific position where this page starts (0 on the first page). */
  from: number;
}

export interface ChatPage {
  chats: ProviderChat[];
  /** Position of the next page, or null when the listing is complete. */
  next: number | null;
}

/**
 * Serves a web session's status and chats. Failures are `ProviderError`s (providers/provider.types),
 * mapped like sends (providers/provider-errors `toApiError`): `failed` -> 502 PROVIDER_ERROR,
 * `unavailable` (incl. timeouts) -> 503 PROVIDER_UNAVAILABLE, `rate_limited` -> 429 PROVIDER_RATE_LIMITED.
 */
export interface WebSessionProvider {
  readonly name: WebSessionProviderName;
  status(session: WebSessionEntity): Promise<WebSessionStatus>;
  listChats(session: WebSessionEntity, page: ChatPageRequest): Promise<ChatPage>;
}
