import type { SendOutcome } from '../messaging/send-outcome';
import type { BulkRowErrorCode } from './bulk-error-codes';

/** A row's settled state, as the runner writes it. */
export type RowOutcome =
  { status: 'sent'; code: null; message: null } | { status: 'failed'; code: BulkRowErrorCode; message: string };

/**
 * What a window's outcome does to its row. `settle`: the row moves to sent or failed. `pending`:
 * nothing of it is in the log (never paid), so a later window pays and sends it. `sending`: its
 * message is in the log, paid and still open (not attempted, or held by another sender), so the row
 * stays claimed: the next batch (or, for a cancelled job, the reaper) settles it from the log, and
 * it is never paid twice.
 */
export type RowPlan = { kind: 'settle'; outcome: RowOutcome } | { kind: 'pending' } | { kind: 'sending' };

/** Why a row failed, for a message that ended `failed` by a verdict (a rejection, an unconfirmed earlier attempt). */
const FAILED_ROW_MESSAGES: Partial<Record<BulkRowErrorCode, string>> = {
  INVALID_ATTACHMENT: 'The attachment or header media URL was refused or could not be fetched at send time',
  DELIVERY_UNCONFIRMED:
    'An earlier attempt reached the provider but its answer was lost; it may have been delivered, so it was not sent again (retry-failed sends it)',
};

const SENT: RowOutcome = { status: 'sent', code: null, message: null };

export function planRow(o: SendOutcome): RowPlan {
  switch (o.kind) {
    case 'sent':
      return { kind: 'settle', outcome: SENT };
    case 'failed':
      return { kind: 'settle', outcome: failed(o.result.errorCode, o.error?.message) };
    case 'settled_elsewhere':
      if (o.result.status === 'sent') return { kind: 'settle', outcome: SENT };
      if (o.result.status === 'failed') return { kind: 'settle', outcome: failed(o.result.errorCode) };
      return { kind: 'sending' };
    case 'not_attempted':
      return o.paid ? { kind: 'sending' } : { kind: 'pending' };
  }
}

export interface WindowPause {
  reason: 'insufficient_balance' | 'provider_rate_limit';
  resumeAt: number | null;
}

/**
 * The pause a window's outcomes call for, from the first row that needs one: no balance (or an
 * inactive subscription) pauses until resumed; a provider rate limit until max(backoff, Retry-After).
 */
export function pauseAfter(outcomes: SendOutcome[], at: number, rateLimitBackoffMs: number): WindowPause | null {
  for (const o of outcomes) {
    if (o.kind !== 'not_attempted') continue;
    if (o.reason === 'insufficient_balance') return { reason: 'insufficient_balance', resumeAt: null };
    if (o.reason === 'rate_limited')
      return { reason: 'provider_rate_limit', resumeAt: at + Math.max(rateLimitBackoffMs, o.retryAfterMs ?? 0) };
  }
  return null;
}

function failed(code: BulkRowErrorCode | null, providerError?: string): RowOutcome {
  const c = code ?? 'PROVIDER_REJECTED';
  return {
    status: 'failed',
    code: c,
    message: providerError ?? FAILED_ROW_MESSAGES[c] ?? 'The provider rejected the message',
  };
}
