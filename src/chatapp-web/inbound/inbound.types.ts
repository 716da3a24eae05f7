/** Length of the stored remote message and chat ids (web_inbound_messages columns). */
export const REMOTE_ID_MAX_LENGTH = 200;

/** An inbound message as a provider (sandbox route or WAHA hook) reports it, before filtering. */
export interface InboundMessageInput {
  from: { jid: string; phone?: string | null; displayName: string };
  text: string;
  isGroup?: boolean;
  /** Chat at the provider; defaults to `from.jid` (a direct chat). */
  remoteChatId?: string;
  /** Message id at the provider; the sandbox generates one when absent. */
  remoteMessageId?: string;
  fromMe?: boolean;
  historySync?: boolean;
  media?: { mediaType: string; mimetype?: string | null; fileName?: string | null } | null;
  /** Message time at the provider (epoch ms); defaults to the time we received it. */
  timestamp?: number;
}

export type InboundDropReason = 'from_me' | 'history_sync' | 'duplicate';

export interface InboundResult {
  /** True when this call stored a new inbound message (delivered, or skipped for lack of a webhook). */
  accepted: boolean;
  dropped: InboundDropReason | null;
  /** `queued`: an event delivery was written; `skipped`: the account has no web-session webhook. */
  status: 'queued' | 'skipped' | null;
  deliveryId: string | null;
  remoteMessageId: string | null;
}

export const INBOUND_EVENT = 'chatapp_web.message.received';
