import { num, numOrNull, str, type Row } from '../database/sql';
import type { BulkJobErrorCode, BulkRowErrorCode } from './bulk-error-codes';
import { AccountId, accountIdOf } from '../common/account-id';

export type JobStatus =
  'accepting' | 'validating' | 'rejected' | 'queued' | 'running' | 'paused' | 'completed' | 'cancelled';
export type PauseReason = 'insufficient_balance' | 'provider_rate_limit' | 'user';
export type RowStatus = 'pending' | 'sending' | 'sent' | 'failed' | 'cancelled' | 'invalid';

/** A bulk_jobs row, converted once from what the driver returns (snake_case, numbers maybe strings). */
export interface BulkJobRecord {
  id: string;
  accountId: AccountId;
  name: string | null;
  status: JobStatus;
  messagesPerSecond: number;
  /** Test mode: `testOptions.instantReceipts` (the sandbox's receipts at once). */
  instantReceipts: boolean;
  pauseReason: PauseReason | null;
  total: number;
  validatedCount: number;
  pendingCount: number;
  sentCount: number;
  failedCount: number;
  cancelledCount: number;
  invalidCount: number;
  errorCode: BulkJobErrorCode | null;
  errorMessage: string | null;
  idempotencyKey: string | null;
  rawHash: string | null;
  requestHash: string | null;
  /** Epoch ms. */
  resumeAt: number | null;
  /** Epoch ms: marketing rows wait for the sending hours until then (null once leased again). */
  quietUntil: number | null;
  leaseOwner: string | null;
  leaseExpiresAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** A bulk_rows row (the columns a statement read; payload only where it was selected). */
export interface BulkRowRecord {
  jobId: string;
  idx: number;
  status: RowStatus;
  to: string | null;
  channel: string | null;
  /** transactional or marketing (known once validation checked the row). */
  purpose: string;
  payload: string;
  messageId: string | null;
  /** 0, then one more per retry-failed (part of the key its message id is derived from). */
  attempt: number;
  errorCode: BulkRowErrorCode | null;
  errorMessage: string | null;
  /** Epoch ms. */
  sentAt: number | null;
  /** From the row's message (the report page's LEFT JOIN); null where not read or no message. */
  encoding: string | null;
  segments: number | null;
  /** The message's status and when a receipt said delivered (epoch ms); same join. */
  messageStatus: string | null;
  deliveredAt: number | null;
}

export function toJobRecord(r: Row): BulkJobRecord {
  return {
    id: String(r.id),
    accountId: accountIdOf(String(r.account_id)),
    name: str(r.name),
    status: String(r.status) as JobStatus,
    messagesPerSecond: num(r.messages_per_second),
    instantReceipts: !!Number(r.instant_receipts ?? 0),
    pauseReason: str(r.pause_reason) as PauseReason | null,
    total: num(r.total),
    validatedCount: num(r.validated_count),
    pendingCount: num(r.pending_count),
    sentCount: num(r.sent_count),
    failedCount: num(r.failed_count),
    cancelledCount: num(r.cancelled_count),
    invalidCount: num(r.invalid_count),
    errorCode: str(r.error_code) as BulkJobErrorCode | null,
    errorMessage: str(r.error_message),
    idempotencyKey: str(r.idempotency_key),
    rawHash: str(r.raw_hash),
    requestHash: str(r.request_hash),
    resumeAt: numOrNull(r.resume_at),
    quietUntil: numOrNull(r.quiet_until),
    leaseOwner: str(r.lease_owner),
    leaseExpiresAt: numOrNull(r.lease_expires_at),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

/** `jobId`: the job the statement read the row of; a read of several jobs' rows takes it from the row's job_id column. */
export function toRowRecord(r: Row, jobId: string = String(r.job_id)): BulkRowRecord {
  return {
    jobId,
    idx: num(r.idx),
    status: String(r.status ?? 'pending') as RowStatus,
    to: str(r.to_addr),
    channel: str(r.channel),
    purpose: str(r.purpose) ?? 'transactional',
    payload: r.payload === undefined || r.payload === null ? '' : String(r.payload),
    messageId: str(r.message_id),
    attempt: num(r.attempt),
    errorCode: str(r.error_code) as BulkRowErrorCode | null,
    errorMessage: str(r.error_message),
    sentAt: numOrNull(r.sent_at),
    encoding: str(r.encoding),
    segments: numOrNull(r.segments),
    messageStatus: str(r.message_status),
    deliveredAt: numOrNull(r.delivered_at),
  };
}

/** Jobs of one live status and their pending rows (`jobStatements.liveCounts`). */
export interface LiveCount {
  status: string;
  jobs: number;
  pending: number;
}

export const toLiveCount = (r: Row): LiveCount => ({
  status: String(r.status),
  jobs: num(r.jobs),
  pending: num(r.pending),
});
