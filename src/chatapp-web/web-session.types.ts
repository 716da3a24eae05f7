import type { ChatKind } from './entities/web-session-chat.entity';
import type { WebSessionKind, WebSessionProviderName, WebSessionStatus } from './entities/web-session.entity';

export type { ChatKind, WebSessionKind, WebSessionProviderName, WebSessionStatus };

/** What the send validator needs of a session (contract: WebSessionsService.findForSend). */
export interface WebSessionForSend {
  id: string;
  name: string;
  kind: WebSessionKind;
  status: WebSessionStatus;
  provider: WebSessionProviderName;
}

export interface ChatInput {
  chatId: string;
  kind: ChatKind;
  title: string;
  phoneNumber?: string | null;
}

export interface CreateWebSessionInput {
  name: string;
  status: 'ready' | 'starting';
  kind?: WebSessionKind;
  provider?: WebSessionProviderName;
  providerSession?: string;
  chats?: ChatInput[];
}

/** Admin view of a session. `hook` only for provider sessions, and its key only when created. */
export interface WebSessionView {
  id: string;
  name: string;
  kind: WebSessionKind;
  provider: WebSessionProviderName;
  providerSession: string;
  status: WebSessionStatus;
  chatCount: number | null;
  createdAt: string;
  hook?: { url: string; hmacKey: string; algorithm: 'sha512' };
}

/** The conversation key shared by the chat listing and inbound events: `<session name>:<chat id>`. */
export function conversationKey(sessionName: string, chatId: string): string {
  return `${sessionName}:${chatId}`;
}
