import { ApiError, ErrorCode, OutcomeCode } from '../common/errors';
import type { SmsEncoding } from '../common/sms/sms-segments';
import { iso } from '../database/columns';
import type { LogOrigin } from './log-origin';

/**
 * Every errorCode a message can end `failed` with: a provider's verdict (PROVIDER_REJECTED, or
 * INVALID_ATTACHMENT for a target refused at send time), the provider error that failed it, an
 * unconfirmed earlier attempt, a cancelled bulk job. SERVICE_UNAVAILABLE: written by earlier
 * versions for a bulk window cut short by shutdown (such messages now stay paid and open, and the
 * next window sends them); kept so messages stored then still match the documented enum.
 * UNDELIVERED / EXPIRED / REJECTED_BY_CARRIER: a failure receipt after `sent` (paid, not refunded).
 */
export const MESSAGE_FAILURE_CODES = [
  'PROVIDER_REJECTED',
  'INVALID_ATTACHMENT',
  'PROVIDER_RATE_LIMITED',
  'PROVIDER_UNAVAILABLE',
  'PROVIDER_ERROR',
  'DELIVERY_UNCONFIRMED',
  'CANCELLED',
  'SERVICE_UNAVAILABLE',
  'UNDELIVERED',
  'EXPIRED',
  'REJECTED_BY_CARRIER',
  'RECIPIENT_OPTED_OUT',
] as const satisfies readonly (ErrorCode | OutcomeCode)[];
export type MessageFailureCode = (typeof MESSAGE_FAILURE_CODES)[number];

/** The codes of a failure receipt: the message was sent (and paid) and the carrier or device did not get it. */
export function isReceiptFailure(code: string | null): boolean {
  return code === 'UNDELIVERED' || code === 'EXPIRED' || code === 'REJECTED_BY_CARRIER';
}

/** The three ways a provider call (or lookup) fails without a verdict (providers/provider-errors.ts). */
export type ProviderFailureCode = 'PROVIDER_RATE_LIMITED' | 'PROVIDER_UNAVAILABLE' | 'PROVIDER_ERROR';
export type ProviderFailure = ApiError & { readonly code: ProviderFailureCode };

export function isProviderFailure(err: unknown): err is ProviderFailure {
  return (
    err instanceof ApiError &&
    (err.code === 'PROVIDER_RATE_LIMITED' || err.code === 'PROVIDER_UNAVAILABLE' || err.code === 'PROVIDER_ERROR')
  );
}

export interface SendOrigin extends LogOrigin {
  /** Deterministic id (bulk row): a retried row reuses it, so the provider sees one reference. */
  messageId?: string;
}

export interface SendResult {
  id: string;
  to: string;
  channel: string;
  status: 'sent' | 'failed' | 'queued' | 'scheduled';
  /** Minor units taken from the wallet (0: free message, plan quota, or refunded). */
  cost: number;
  errorCode: MessageFailureCode | null;
  providerMessageId: string | null;
  /** ISO 8601, scheduled messages only. */
  scheduledAt?: string;
  /** local_sms: `gsm7` / `ucs2` and the parts (billable units); null on other channels. */
  encoding: SmsEncoding | null;
  segments: number | null;
}

/** Why a message of a bulk window was not handed to the provider (nothing was decided about it). */
export type NotAttemptedReason =
  /** An earlier message of the window met a provider error or rate limit: the window stopped. */
  | 'provider_stopped'
  /** The sender is shutting down (its pacer said so). */
  | 'shutting_down'
  /** Free messages, plan quota and wallet could not pay for it (or the subscription is inactive). */
  | 'insufficient_balance'
  /** The provider refused the call with a rate limit: it did not take the message. */
  | 'rate_limited'
  /** The sender's lease on the work ran out: another sender may hold it now (its pacer said so). */
  | 'lease_lost';

/**
 * What one message of a bulk window came to. `sent` / `failed`: the message is in that final state
 * (`error`: the provider error that failed it in this attempt, null for a verdict or an earlier
 * outcome). `not_attempted`: never handed to the provider in this window; `paid` says whether it is
 * in the log, paid and still `queued` (the next attempt sends it through the log without charging
 * again) or was never recorded. `settled_elsewhere`: another sender holds or settled it meanwhile;
 * `result` is the message as the log has it.
 */
export type SendOutcome =
  | { kind: 'sent'; result: SendResult }
  | { kind: 'failed'; result: SendResult; error: ProviderFailure | null }
  | { kind: 'not_attempted'; reason: NotAttemptedReason; paid: boolean; retryAfterMs?: number }
  | { kind: 'settled_elsewhere'; result: SendResult };

/** An outcome in which the message reached (or already had) a state: everything but `not_attempted`. */
export type Settled = Exclude<SendOutcome, { kind: 'not_attempted' }>;

/** Who and where a result is about (a validated message, or a logged one's recipient and channel). */
export interface Addressee {
  to: string;
  channel: string;
  /** local_sms only (absent or null elsewhere, and in payloads stored before segments were counted). */
  encoding?: SmsEncoding | null;
  segments?: number | null;
}

export function sendResult(
  id: string,
  to: Addressee,
  status: SendResult['status'],
  cost: number,
  errorCode: MessageFailureCode | null,
  providerMessageId: string | null,
  scheduledAt?: number | null,
): SendResult {
  const r: SendResult = {
    id,
    to: to.to,
    channel: to.channel,
    status,
    cost,
    errorCode,
    providerMessageId,
    encoding: to.encoding ?? null,
    segments: to.segments ?? null,
  };
  if (scheduledAt !== undefined && scheduledAt !== null) r.scheduledAt = iso(scheduledAt) as string;
  return r;
}
