import type { ChannelName } from '../../config/app-config';
import type { SmsEncoding } from '../../common/sms/sms-segments';
import type { ProviderTemplate } from '../../providers/provider.types';

export const MESSAGE_TYPES = ['free_text', 'template'] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

export const MESSAGE_PURPOSES = ['transactional', 'marketing'] as const;
/** `marketing`: subject to the marketing rules (promotional sender, opt-out footer, link hosts, sending hours). */
export type MessagePurpose = (typeof MESSAGE_PURPOSES)[number];

/**
 * A template resolved and rendered for one send (the provider's shape, header override explicit).
 * Without its route: the gateway resolves the sender when it calls the provider, so a scheduled
 * payload never carries a sender that changed since (and payloads stored before routing still send).
 */
export type ValidatedTemplate = Omit<ProviderTemplate, 'route'> & { headerMediaUrl: string | null };

/**
 * One recipient, checked and normalised by MessageValidator: `to` is E.164 for phone channels, a
 * lowercased address for email, the chat id for web-session / bot channels. `price` is what the
 * message costs in minor units when the wallet pays it: the channel's price per billable unit times
 * `billableUnits(msg)`.
 */
export interface ValidatedMessage {
  channel: ChannelName;
  messageType: MessageType;
  to: string;
  sender: string | null;
  /** Absent in payloads stored before purposes (read as transactional). */
  purpose?: MessagePurpose;
  /** Rendered text (template placeholders filled). */
  text: string | null;
  subject: string | null;
  html: string | null;
  template: ValidatedTemplate | null;
  attachment: { url: string; mimeType: string | null; fileName: string | null } | null;
  /** Web session name / bot id (conversationContext.accountId). */
  session: string | null;
  chatId: string | null;
  /** Epoch ms when scheduled (single-send route only), else null. */
  scheduleAt: number | null;
  price: number;
  /** local_sms: how the text is sent and how many parts it takes (each a billable unit); null on other channels. */
  encoding: SmsEncoding | null;
  segments: number | null;
}

/** Billable units of a message: an SMS's parts, 1 for every other message (and for payloads stored before segments). */
export function billableUnits(msg: Pick<ValidatedMessage, 'segments'>): number {
  return msg.segments ?? 1;
}
