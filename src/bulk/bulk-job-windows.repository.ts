import { Injectable } from '@nestjs/common';
import { caseOf, decoders, inList, query, Query, read, sql, Stmt, StmtResult, Steps } from '../database/sql';
import { leaseStatements } from './bulk-job-leases.repository';

/**
 * A window's end closes it (no row of the job is taken any more) only where the lease is still the
 * settler's: a stalled replica settling late must not close the window its successor has open. Two
 * parameters: the owner, twice.
 */
const CLOSE_OWN_WINDOW =
  'window_from = CASE WHEN lease_owner = ? THEN NULL ELSE window_from END, window_to = CASE WHEN lease_owner = ? THEN NULL ELSE window_to END';

export interface WindowPauseMove {
  reason: 'insufficient_balance' | 'provider_rate_limit';
  resumeAt: number | null;
}

/** Statements of bulk_jobs as dispatch windows open, count and close on them, as pure builders. */
export const jobWindowStatements = {
  /** Windows' renewal, which is their check: still ours and still to run (a retry or resume may have set one back to `queued`); `runningOf` then tells which it renewed. */
  renewForWindows: (ids: string[], owner: string, until: number): Stmt =>
    sql(
      `UPDATE bulk_jobs SET lease_expires_at = ?, status = 'running' WHERE id IN (${inList(ids.length)}) AND lease_owner = ? AND status IN ('queued', 'running')`,
      until,
      ...ids,
      owner,
    ),
  runningOf: (ids: string[], owner: string): Query<string> =>
    query(
      decoders.id,
      sql(
        `SELECT id FROM bulk_jobs WHERE id IN (${inList(ids.length)}) AND lease_owner = ? AND status = 'running'`,
        ...ids,
        owner,
      ),
    ),
  /** Windows opened at `at` (their rows' message ids derive from it), each job's range of rows taken, in one UPDATE. */
  openWindows: (windows: { id: string; from: number; to: number }[], at: number): Stmt => {
    const from = caseOf(
      'id',
      windows.map((w) => [w.id, w.from]),
    );
    const to = caseOf(
      'id',
      windows.map((w) => [w.id, w.to]),
    );
    return {
      sql: `UPDATE bulk_jobs SET window_from = ${from.sql}, window_to = ${to.sql}, window_at = ? WHERE id IN (${inList(windows.length)})`,
      params: [...from.params, ...to.params, at, ...windows.map((w) => w.id)],
    };
  },
  /**
   * Windows closed in one UPDATE: their settled rows counted, each window closed where `owner` still
   * holds the lease. A window that settled no row leaves the job's updated_at alone (the time of its
   * last settlement: see leaseStatements.freeTurns).
   */
  closeWindows: (counts: { id: string; sent: number; failed: number }[], owner: string, now: number): Stmt => {
    const col = (f: (c: { sent: number; failed: number }) => number) =>
      caseOf(
        'id',
        counts.map((c) => [c.id, f(c)]),
      );
    const settled = col((c) => c.sent + c.failed);
    const sent = col((c) => c.sent);
    const failed = col((c) => c.failed);
    const idle = counts.filter((c) => c.sent + c.failed === 0).map((c) => c.id);
    const updated = idle.length ? `CASE WHEN id IN (${inList(idle.length)}) THEN updated_at ELSE ? END` : '?';
    return {
      sql: `UPDATE bulk_jobs SET pending_count = pending_count - ${settled.sql}, sent_count = sent_count + ${sent.sql}, failed_count = failed_count + ${failed.sql}, ${CLOSE_OWN_WINDOW}, updated_at = ${updated} WHERE id IN (${inList(counts.length)})`,
      params: [
        ...settled.params,
        ...sent.params,
        ...failed.params,
        owner,
        owner,
        ...idle,
        now,
        ...counts.map((c) => c.id),
      ],
    };
  },
  pauseRunning: (id: string, owner: string, p: WindowPauseMove): Stmt =>
    sql(
      `UPDATE bulk_jobs SET status = 'paused', pause_reason = ?, resume_at = ?, lease_owner = NULL, lease_expires_at = NULL WHERE id = ? AND status = 'running' AND lease_owner = ?`,
      p.reason,
      p.resumeAt,
      id,
      owner,
    ),
};

/**
 * bulk_jobs as dispatch windows move it, for many jobs at once (WindowBatches): the renewal that
 * checks a window may start, the window recorded on its job, its settled rows counted, the window
 * closed and its pause. (Turns, leases, completion and the reaper's are in bulk-job-leases.repository.ts.)
 */
@Injectable()
export class BulkJobWindowsRepository {
  /** Windows opened (see jobWindowStatements.openWindows), in the unit that read their rows. */
  *openWindows(windows: { id: string; from: number; to: number }[], at: number): Steps<void> {
    if (windows.length) yield jobWindowStatements.openWindows(windows, at);
  }

  /** Windows' renewal (see jobWindowStatements.renewForWindows); returns the jobs it renewed. */
  *renewForWindows(ids: string[], owner: string, until: number): Steps<Set<string>> {
    const renewed: StmtResult = yield jobWindowStatements.renewForWindows(ids, owner, until);
    if (renewed.affected === ids.length) return new Set(ids);
    if (!renewed.affected) return new Set();
    return new Set(yield* read(jobWindowStatements.runningOf(ids, owner)));
  }

  /**
   * Windows' settled rows counted and the windows closed (see jobWindowStatements.closeWindows); then
   * each window's pause, if any (the job lets go of its lease). Returns the jobs moved to `paused`.
   */
  *closeWindows(
    windows: { id: string; sent: number; failed: number; pause: WindowPauseMove | null }[],
    owner: string,
    now: number,
  ): Steps<Set<string>> {
    const paused = new Set<string>();
    if (!windows.length) return paused;
    yield jobWindowStatements.closeWindows(windows, owner, now);
    for (const w of windows) if (w.pause && (yield* this.pauseWindow(w.id, owner, w.pause))) paused.add(w.id);
    return paused;
  }

  /** A window's pause (no balance, a provider rate limit): the job lets go of its lease either way. Returns whether it moved to `paused`. */
  *pauseWindow(id: string, owner: string, p: WindowPauseMove): Steps<boolean> {
    const r: StmtResult = yield jobWindowStatements.pauseRunning(id, owner, p);
    yield leaseStatements.release(id, owner);
    return r.affected === 1;
  }
}
