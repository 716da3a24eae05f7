import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '../database/unit-of-work';
import { decoders, inList, num, query, Query, read, Row, sql, Stmt, StmtResult, Steps, str } from '../database/sql';
import { windowRowStatements } from './window-rows.repository';
import type { SettledRow } from './window-rows';
import { AccountId, accountIdOf } from '../common/account-id';

/** Jobs that hold their account's turn: running or waiting to run, or paused by a provider rate limit. */
const HOLDS_TURN = `status IN ('queued', 'running') OR (status = 'paused' AND pause_reason = 'provider_rate_limit')`;

/** Paused by a provider rate limit whose back-off ended (one parameter: now). */
const RATE_LIMITED_DUE = `status = 'paused' AND pause_reason = 'provider_rate_limit' AND resume_at <= ?`;

/** Rate-limited jobs resumed per dispatch tick at most. */
const RESUMES_PER_CALL = 1000;

/** Per account, the oldest job holding its turn. */
export interface Turn {
  id: string;
  accountId: AccountId;
  status: string;
  /** Fixed once intake finished. */
  mps: number;
  /** Test mode: the job asked for the sandbox's receipts at once. */
  instantReceipts: boolean;
  leaseOwner: string | null;
  leaseExpiresAt: number | null;
}

export function toTurn(r: Row): Turn {
  return {
    id: String(r.id),
    accountId: accountIdOf(String(r.account_id)),
    status: String(r.status),
    mps: num(r.messages_per_second),
    instantReceipts: !!num(r.instant_receipts),
    leaseOwner: str(r.lease_owner),
    leaseExpiresAt: r.lease_expires_at === null || r.lease_expires_at === undefined ? null : num(r.lease_expires_at),
  };
}

/** A job a claim of turns may lease: who held it, and whether none of its rows was settled in the last second. */
export interface FreeTurn {
  id: string;
  leaseOwner: string | null;
  quiet: boolean;
}

export const toFreeTurn = (r: Row): FreeTurn => ({
  id: String(r.id),
  leaseOwner: str(r.lease_owner),
  quiet: num(r.quiet) === 1,
});

/** Jobs a claim leased; `quiet`: those none of whose rows was settled (sent or failed) in the last second. */
export interface ClaimedTurns {
  won: Set<string>;
  quiet: Set<string>;
  takenOver: number;
}

/** A cancelled job whose rows are not all settled (the reaper's work). */
export interface UnsettledJob {
  id: string;
  accountId: AccountId;
  leaseOwner: string | null;
}

export const toUnsettledJob = (r: Row): UnsettledJob => ({
  id: String(r.id),
  accountId: accountIdOf(String(r.account_id)),
  leaseOwner: str(r.lease_owner),
});

/**
 * Statements of bulk_jobs dispatch and the reaper issue (turns, leases, completion, orphans), as pure
 * builders (a window's are jobWindowStatements). `skipLocked` comes from the unit of work's capabilities (feature code names no dialect).
 */
export const leaseStatements = {
  // --- dispatch
  /** A plain read (no lock: a locking scan of the status index made every job's completion wait on it each tick). */
  rateLimitedDue: (now: number, limit: number): Query<string> =>
    query(decoders.id, sql(`SELECT id FROM bulk_jobs WHERE ${RATE_LIMITED_DUE} LIMIT ${limit}`, now)),
  resumeRateLimited: (ids: string[], now: number): Stmt =>
    sql(
      `UPDATE bulk_jobs SET status = 'queued', pause_reason = NULL, resume_at = NULL, updated_at = ? WHERE id IN (${inList(ids.length)}) AND ${RATE_LIMITED_DUE}`,
      now,
      ...ids,
      now,
    ),
  turns: (limit: number): Query<Turn> =>
    query(
      toTurn,
      sql(
        `SELECT j.id, j.account_id, j.status, j.messages_per_second, j.instant_receipts, j.lease_owner, j.lease_expires_at
       FROM bulk_jobs j JOIN (SELECT MIN(id) AS id FROM bulk_jobs WHERE ${HOLDS_TURN} GROUP BY account_id) t ON t.id = j.id
       ORDER BY j.id LIMIT ${limit}`,
      ),
    ),
  freeTurns: (ids: string[], owner: string, now: number, skipLocked: boolean): Query<FreeTurn> =>
    query(
      toFreeTurn,
      sql(
        // quiet: no row settled, or the last settlement (which writes updated_at, at or after its rows'
        // sent_at, in the same unit) more than a second ago; other writes only make updated_at newer.
        `SELECT id, lease_owner, CASE WHEN sent_count + failed_count = 0 OR updated_at < ? THEN 1 ELSE 0 END AS quiet FROM bulk_jobs WHERE id IN (${inList(ids.length)}) AND status IN ('queued', 'running') AND (lease_owner IS NULL OR lease_owner = ? OR lease_expires_at < ?) AND (quiet_until IS NULL OR quiet_until <= ?)${skipLocked ? ' FOR UPDATE SKIP LOCKED' : ''}`,
        now - 1000,
        ...ids,
        owner,
        now,
        now,
      ),
    ),
  leaseTurns: (ids: string[], owner: string, until: number, now: number): Stmt =>
    sql(
      `UPDATE bulk_jobs SET status = 'running', lease_owner = ?, lease_expires_at = ?, quiet_until = NULL, updated_at = ? WHERE id IN (${inList(ids.length)})`,
      owner,
      until,
      now,
      ...ids,
    ),
  renew: (id: string, owner: string, until: number): Stmt =>
    sql('UPDATE bulk_jobs SET lease_expires_at = ? WHERE id = ? AND lease_owner = ?', until, id, owner),
  release: (id: string, owner: string): Stmt =>
    sql('UPDATE bulk_jobs SET lease_owner = NULL, lease_expires_at = NULL WHERE id = ? AND lease_owner = ?', id, owner),
  releaseDispatch: (owner: string): Stmt =>
    sql(
      `UPDATE bulk_jobs SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = ? AND status IN ('queued', 'running')`,
      owner,
    ),
  releaseAll: (owner: string): Stmt =>
    sql('UPDATE bulk_jobs SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = ?', owner),
  /** Marketing rows wait for the sending hours: the job lets go of its lease and is not leased before `until`. */
  park: (id: string, owner: string, until: number): Stmt =>
    sql(
      `UPDATE bulk_jobs SET quiet_until = ?, lease_owner = NULL, lease_expires_at = NULL WHERE id = ? AND lease_owner = ?`,
      until,
      id,
      owner,
    ),
  complete: (id: string, owner: string, now: number): Stmt =>
    sql(
      `UPDATE bulk_jobs SET status = 'completed', lease_owner = NULL, lease_expires_at = NULL, updated_at = ? WHERE id = ? AND status = 'running' AND lease_owner = ?
       AND NOT EXISTS (SELECT 1 FROM bulk_rows WHERE job_id = ? AND status IN ('pending', 'sending'))`,
      now,
      id,
      owner,
      id,
    ),
  // --- reaper
  unsettledCancelled: (now: number, limit: number): Query<UnsettledJob> =>
    query(
      toUnsettledJob,
      sql(
        `SELECT id, account_id, lease_owner FROM bulk_jobs WHERE status = 'cancelled' AND pending_count > 0 AND (lease_owner IS NULL OR lease_expires_at < ?) ORDER BY updated_at LIMIT ${limit}`,
        now,
      ),
    ),
  leaseCancelled: (id: string, owner: string, until: number, now: number): Stmt =>
    sql(
      `UPDATE bulk_jobs SET lease_owner = ?, lease_expires_at = ?, updated_at = ? WHERE id = ? AND status = 'cancelled' AND (lease_owner IS NULL OR lease_expires_at < ?)`,
      owner,
      until,
      now,
      id,
      now,
    ),
  /** One orphan row of a cancelled job settled as `status`. */
  countOrphanSettled: (id: string, status: 'sent' | 'failed' | 'cancelled', now: number): Stmt =>
    sql(
      `UPDATE bulk_jobs SET pending_count = pending_count - 1, ${status}_count = ${status}_count + 1, updated_at = ? WHERE id = ?`,
      now,
      id,
    ),
};

/**
 * bulk_jobs as dispatch and the reaper move it: turns and their leases, parking and completion; the
 * reaper's leases of cancelled jobs and their orphan rows. (A window's renewal, counters, closing and
 * pause are in bulk-job-windows.repository.ts, validation's in bulk-job-validation.repository.ts.)
 */
@Injectable()
export class BulkJobLeasesRepository {
  constructor(private readonly db: UnitOfWork) {}

  /**
   * Up to `limit` jobs whose rate-limit back-off ended back to `queued` (the rest at the next call, so
   * the id list stays under every dialect's parameter limit): found by a plain read, moved by id (the
   * condition checked again); how many moved.
   */
  async resumeRateLimited(now: number, limit = RESUMES_PER_CALL): Promise<number> {
    const ids = await this.db.read(leaseStatements.rateLimitedDue(now, limit));
    return ids.length ? this.db.exec(leaseStatements.resumeRateLimited(ids, now)) : 0;
  }

  async turns(limit: number): Promise<Turn[]> {
    return this.db.read(leaseStatements.turns(limit));
  }

  /**
   * Leases the free ones of `ids` (queued / running) in one unit; skips rows another transaction holds.
   * `quiet`: the won jobs none of whose rows was settled in the last second (read under the same lock
   * as the lease), so no row has a send time a new runner must pace after.
   */
  async claimTurns(ids: string[], owner: string, until: number, now: number): Promise<ClaimedTurns> {
    const skipLocked = this.db.capabilities.skipLocked;
    return this.db.steps(function* (): Steps<ClaimedTurns> {
      const free = yield* read(leaseStatements.freeTurns(ids, owner, now, skipLocked));
      const won = free.map((t) => t.id);
      if (!won.length) return { won: new Set<string>(), quiet: new Set<string>(), takenOver: 0 };
      // (Locked by the read above, or the embedded database's one writer is us: no condition needed.)
      yield leaseStatements.leaseTurns(won, owner, until, now);
      const quiet = new Set(free.filter((t) => t.quiet).map((t) => t.id));
      return {
        won: new Set(won),
        quiet,
        takenOver: free.filter((t) => t.leaseOwner !== null && t.leaseOwner !== owner).length,
      };
    });
  }

  async renew(id: string, owner: string, until: number): Promise<boolean> {
    return (await this.db.exec(leaseStatements.renew(id, owner, until))) === 1;
  }

  async release(id: string, owner: string): Promise<void> {
    await this.db.run(leaseStatements.release(id, owner));
  }

  async releaseDispatch(owner: string): Promise<void> {
    await this.db.run(leaseStatements.releaseDispatch(owner));
  }

  async releaseAll(owner: string): Promise<void> {
    await this.db.run(leaseStatements.releaseAll(owner));
  }

  /** The job's pending rows wait for the sending hours: not leased again before `until`. */
  async park(id: string, owner: string, until: number): Promise<void> {
    await this.db.run(leaseStatements.park(id, owner, until));
  }

  /** `completed` once no row is pending or sending; false otherwise (or when the lease is gone). */
  async complete(id: string, owner: string, now: number): Promise<boolean> {
    return (await this.db.exec(leaseStatements.complete(id, owner, now))) === 1;
  }

  /** One orphan row of a cancelled job settled from the message log (if still `sending`), counted once; returns 1 when it moved. */
  *settleOrphan(id: string, row: SettledRow, now: number): Steps<number> {
    const r: StmtResult = yield windowRowStatements.settleOrphan(id, row);
    if (!r.affected) return 0;
    yield leaseStatements.countOrphanSettled(id, row.status, now);
    return 1;
  }

  async unsettledCancelled(now: number, limit: number): Promise<UnsettledJob[]> {
    return this.db.read(leaseStatements.unsettledCancelled(now, limit));
  }

  async leaseCancelled(id: string, owner: string, until: number, now: number): Promise<boolean> {
    return (await this.db.exec(leaseStatements.leaseCancelled(id, owner, until, now))) === 1;
  }
}
