import type { ChannelName } from '../../config/app-config';
import type { AccountId } from '../../common/account-id';

/*
 * Port (messaging sits below the features): the one guardrail step of the send pipeline. After a
 * message is validated and before it is paid, the pipeline asks SEND_POLICY about it, for every
 * origin. ConsentModule (global) provides the token; messaging never imports it.
 */

export const PURPOSES = ['transactional', 'marketing'] as const;
/** What a message is for: `marketing` is subject to consent rules (suppression scope, DND, sending hours). */
export type Purpose = (typeof PURPOSES)[number];

/** Where a message comes from (a policy may treat origins differently: verification codes are never marketing). */
export type SendOrigin = 'single' | 'batch' | 'scheduled' | 'bulk' | 'verification';

/** One message the pipeline is about to pay for. */
export interface PolicySubject {
  accountId: AccountId;
  channel: ChannelName;
  /** Normalised as the validator hands it on: E.164, lower-case email, or a chat id. */
  recipient: string;
  purpose: Purpose;
  /** The SMS sender name (a promotional name makes an SMS marketing: the marketing rules decide that). */
  senderName?: string | null;
  origin: SendOrigin;
  /** When the message would go out (a scheduled send's time), epoch ms; default now. Sending hours judge it. */
  at?: number;
}

/** The codes a policy refuses with (each one is in src/common/errors). */
export const POLICY_REFUSAL_CODES = ['RECIPIENT_OPTED_OUT'] as const;
export type PolicyRefusalCode = (typeof POLICY_REFUSAL_CODES)[number];

/**
 * What the policy answers for one subject. `allow`: go on. `refuse`: never paid nor stored as sent
 * (single/batch: 400 with the code; bulk row: settled failed with the code, unpaid). `hold`: not now,
 * at `until` (marketing sending hours). A new kind is added here and handled by every origin.
 */
export type PolicyDecision =
  | { kind: 'allow' }
  /** `why`: the end of the refusal's message after the recipient (default: "has opted out of these messages"). */
  | { kind: 'refuse'; code: PolicyRefusalCode; why?: string }
  | { kind: 'hold'; until: Date };

export const ALLOW: PolicyDecision = { kind: 'allow' };

export interface SendPolicy {
  /**
   * One decision per subject, in order. Costs a bounded number of indexed reads for the whole list
   * (a bulk window asks once for all its rows), not one per subject.
   */
  decide(subjects: readonly PolicySubject[]): Promise<PolicyDecision[]>;
}

export const SEND_POLICY = Symbol('SEND_POLICY');
