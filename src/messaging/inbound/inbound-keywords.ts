import type { ChannelName } from '../../config/app-config';
import type { AccountId } from '../../common/account-id';

/** A text that reached one of an account's senders or numbers (an SMS, a chat-app message...). */
export interface InboundText {
  /** The account that owns the receiving sender name, number or session. */
  accountId: AccountId;
  /** The channel the text came in on: an opt-out is kept for that channel. */
  channel: ChannelName;
  /** Who sent it, normalised like a send's `to` (E.164 for phones): the recipient opted in or out. */
  from: string;
  /** The sender name, number or session it was sent to. */
  to: string;
  /** The whole message (parts already joined). */
  text: string;
  /** The id the inbound message is (or will be) stored under: the suppression entry's `source`. */
  inboundMessageId: string;
  /** When it arrived (epoch ms). */
  at: number;
}

export type KeywordKind = 'opt_out' | 'opt_in' | 'help';

/** What a text turned out to be: a keyword (and what was done), or an ordinary message. */
export type KeywordOutcome =
  { keyword: null } | { keyword: string; kind: KeywordKind; language: 'en' | 'ar' | 'custom' };

/**
 * Port (declared by messaging so that every inbound path can reach it without importing consent):
 * every inbound path (SMPP deliver_sm after joining parts, the Cloud API webhook, web-session
 * messages, the bot API) hands each inbound text to it BEFORE storing the text. Idempotent: the same
 * text with the same `inboundMessageId` again (a redelivery after a failed store) changes nothing
 * more. Rejects only when it could not record what the keyword asks; the caller then does not store
 * or acknowledge the text, so the provider delivers it again. Provided by ConsentModule (global).
 */
export interface InboundKeywords {
  handle(text: InboundText): Promise<KeywordOutcome>;
}
export const INBOUND_KEYWORDS = Symbol('INBOUND_KEYWORDS');
