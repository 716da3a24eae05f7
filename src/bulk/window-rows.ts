import { derivedId } from '../common/ids';
import { num, type Row } from '../database/sql';
import type { BulkRowErrorCode } from './bulk-error-codes';
import { BulkRowRecord, toRowRecord } from './bulk-records';

// The rows of a dispatch window as the runner, the window batches and the reaper pass them around:
// taken under a message id (stored, or derived from the window), then settled, held or put back.

/** A row's outcome as a window (or the reaper) settles it. */
export interface SettledRow {
  idx: number;
  /** The attempt the row was taken at: a row retried since (a new attempt) is not settled by it. */
  attempt: number;
  status: 'sent' | 'failed' | 'cancelled';
  /** The message the row was sent under, written with its outcome (the report joins it). */
  messageId: string | null;
  code: BulkRowErrorCode | null;
  message: string | null;
  /** Epoch ms (null for a cancelled row). */
  at: number | null;
}

/** A row as a window took it, under the message id it was (or would have been) sent under: held or put back at the window's end. */
export interface TakenRow {
  idx: number;
  attempt: number;
  messageId: string;
}

/** A window's rows asked for: up to `limit`, after the runner's cursor `after`; `recover`: rows taken before first. */
export interface WindowAsk {
  jobId: string;
  limit: number;
  recover: boolean;
  after: number;
}

/** A window's end as its rows see it: settled, held `sending`, put back to `pending`. */
export interface WindowOutcomes {
  jobId: string;
  outcomes: SettledRow[];
  held: TakenRow[];
  unsent: TakenRow[];
}

/** A window's rows as claimed (see WindowRowsRepository.claimWindows). */
export interface WindowClaim {
  rows: ClaimedRow[];
  recovering: boolean;
  opened: { from: number; to: number } | null;
}

/** A row taken for a window, with the message id it is sent under. */
export type ClaimedRow = BulkRowRecord & {
  messageId: string;
  /** Nothing can be in the log under its id (a row no window took before): no look-up. */
  fresh: boolean;
};

/** A claimed row as its window's end (or the reaper) names it. */
export const takenOf = (r: ClaimedRow): TakenRow => ({ idx: r.idx, attempt: r.attempt, messageId: r.messageId });

/**
 * The message id of a row taken for a window opened at `at`: derived from (job, row, attempt), so
 * whoever takes the job over after a crash names the same message from what the job recorded (its
 * window's range and time) without a write per row; a retried row (another attempt) gets another.
 */
export function windowMessageId(jobId: string, idx: number, attempt: number, at: number): string {
  return derivedId('msg', at, `${jobId}/${idx}/${attempt}`);
}

/** A row read with the time of its job's window in flight (`window_at`): a takeover's, or the reaper's. */
export type InFlightRow = BulkRowRecord & { windowAt: number };

/** `jobId`: the job the statement read the row of; a read of several jobs' rows takes it from the row's job_id column. */
export function toInFlightRow(x: Row, jobId: string = String(x.job_id)): InFlightRow {
  return { ...toRowRecord(x, jobId), windowAt: num(x.window_at) };
}

/**
 * A row read for a window: under the id stored on it (a row marked `sending`, or put back after
 * one), else the one derived from the window's time; `fresh` when neither a stored id nor an earlier
 * window (`taken`: a row of the window in flight when the job was taken over) can have put a message
 * in the log.
 */
export function toClaimedRow(r: BulkRowRecord, at: number, taken: boolean): ClaimedRow {
  const stored = r.messageId;
  return {
    ...r,
    messageId: stored ?? windowMessageId(r.jobId, r.idx, r.attempt, at),
    fresh: stored === null && !taken,
  };
}
