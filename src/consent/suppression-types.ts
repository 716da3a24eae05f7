import type { ChannelName } from '../config/app-config';
import type { AccountId } from '../common/account-id';

export const SUPPRESSION_SCOPES = ['marketing', 'all'] as const;
/** `marketing` (the default): marketing messages are refused; `all`: every message, verification codes too. */
export type SuppressionScope = (typeof SUPPRESSION_SCOPES)[number];

export const SUPPRESSION_REASONS = ['keyword', 'api', 'console', 'import', 'dnd', 'bounce'] as const;
/** The reasons a client may give when it adds entries (the service sets keyword, import and dnd itself). */
export const CLIENT_SUPPRESSION_REASONS = ['api', 'console', 'bounce'] as const;
export type ClientSuppressionReason = (typeof CLIENT_SUPPRESSION_REASONS)[number];
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

/** One channel, or `all` channels. */
export type SuppressionChannel = ChannelName | 'all';

/** A suppressions row. `recipient` is null once erased (the hash keeps the entry enforced). */
export interface SuppressionRecord {
  id: string;
  accountId: AccountId;
  recipientHash: string;
  recipient: string | null;
  channel: SuppressionChannel;
  scope: SuppressionScope;
  reason: SuppressionReason;
  source: string | null;
  createdAt: number;
}

/** What opting a recipient out takes (the recipient normalised: E.164 or lower-case email). */
export interface OptOut {
  accountId: AccountId;
  recipient: string;
  channel: SuppressionChannel;
  scope?: SuppressionScope;
  reason: SuppressionReason;
  /** The inbound message id, API key id or file that created the entry. */
  source?: string | null;
}

/** Lifting an opt-out: `channel` omitted lifts every entry of the recipient. */
export interface OptIn {
  accountId: AccountId;
  recipient: string;
  channel?: SuppressionChannel;
}
