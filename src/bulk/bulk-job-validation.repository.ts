import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '../database/unit-of-work';
import {
  caseOf,
  decoders,
  inList,
  num,
  query,
  Query,
  read,
  Row,
  sql,
  Stmt,
  StmtResult,
  Steps,
  str,
} from '../database/sql';
import type { BulkJobErrorCode } from './bulk-error-codes';
import { rowStatements } from './bulk-row.repository';
import { AccountId, accountIdOf } from '../common/account-id';

/** A `validating` job leased for validation. */
export interface ValidationLease {
  id: string;
  accountId: AccountId;
  validatedCount: number;
  /** Rows found invalid so far (by an earlier lease holder). */
  invalidCount: number;
  total: number;
  /** Who held the lease before (an expired one of another replica: a takeover). */
  previousOwner: string | null;
}

export const toValidationLease = (r: Row): ValidationLease => ({
  id: String(r.id),
  accountId: accountIdOf(String(r.account_id)),
  validatedCount: num(r.validated_count),
  invalidCount: num(r.invalid_count),
  total: num(r.total),
  previousOwner: str(r.lease_owner),
});

/** A job a queue UPDATE is about to move, as read (and locked) before it. */
export interface QueueCandidate {
  id: string;
  status: string;
  leaseOwner: string | null;
}

export const toQueueCandidate = (r: Row): QueueCandidate => ({
  id: String(r.id),
  status: String(r.status),
  leaseOwner: str(r.lease_owner),
});

/** One job's validated chunk: rows checked up to `next` (exclusive), `invalid` of them invalid, their marks. */
export interface ChunkProgress {
  id: string;
  next: number;
  invalid: number;
  marks: Stmt[];
}

/** Statements of bulk_jobs that validation issues, as pure builders (the plans test runs EXPLAIN on them). */
export const validationStatements = {
  candidates: (now: number, limit: number, skipLocked: boolean): Query<ValidationLease> =>
    query(
      toValidationLease,
      sql(
        `SELECT id, account_id, validated_count, invalid_count, total, lease_owner FROM bulk_jobs WHERE status = 'validating' AND (lease_expires_at IS NULL OR lease_expires_at < ?) ORDER BY id LIMIT ${limit}${skipLocked ? ' FOR UPDATE SKIP LOCKED' : ''}`,
        now,
      ),
    ),
  lease: (ids: string[], owner: string, until: number, now: number): Stmt =>
    sql(
      `UPDATE bulk_jobs SET lease_owner = ?, lease_expires_at = ? WHERE id IN (${inList(ids.length)}) AND status = 'validating' AND (lease_owner IS NULL OR lease_owner = ? OR lease_expires_at < ?)`,
      owner,
      until,
      ...ids,
      owner,
      now,
    ),
  /** Progress of several jobs in one UPDATE (each its own counts), the lease renewed; only jobs still ours and validating. */
  progress: (jobs: ChunkProgress[], owner: string, until: number, now: number): Stmt => {
    const next = caseOf(
      'id',
      jobs.map((j) => [j.id, j.next]),
    );
    const invalid = caseOf(
      'id',
      jobs.map((j) => [j.id, j.invalid]),
    );
    const ids = jobs.map((j) => j.id);
    return {
      sql: `UPDATE bulk_jobs SET validated_count = ${next.sql}, invalid_count = invalid_count + ${invalid.sql}, lease_expires_at = ?, updated_at = ? WHERE id IN (${inList(ids.length)}) AND status = 'validating' AND lease_owner = ?`,
      params: [...next.params, ...invalid.params, until, now, ...ids, owner],
    };
  },
  stillLeased: (ids: string[], owner: string): Query<string> =>
    query(
      decoders.id,
      sql(
        `SELECT id FROM bulk_jobs WHERE id IN (${inList(ids.length)}) AND status = 'validating' AND lease_owner = ?`,
        ...ids,
        owner,
      ),
    ),
  /**
   * The jobs a queue UPDATE is about to move, locked until the unit ends (where rows are locked per
   * transaction). By primary key only, so exactly these rows are locked (a status condition could
   * let the database walk, and lock, every validating job); the caller filters.
   */
  lockForQueue: (ids: string[], lock: boolean): Query<QueueCandidate> =>
    query(
      toQueueCandidate,
      sql(
        `SELECT id, status, lease_owner FROM bulk_jobs WHERE id IN (${inList(ids.length)}) ORDER BY id${lock ? ' FOR UPDATE' : ''}`,
        ...ids,
      ),
    ),
  queue: (ids: string[], owner: string, now: number): Stmt =>
    sql(
      `UPDATE bulk_jobs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL, updated_at = ? WHERE id IN (${inList(ids.length)}) AND status = 'validating' AND lease_owner = ?`,
      now,
      ...ids,
      owner,
    ),
  reject: (id: string, owner: string, code: BulkJobErrorCode, message: string, now: number): Stmt =>
    sql(
      `UPDATE bulk_jobs SET status = 'rejected', error_code = ?, error_message = ?, pending_count = 0, cancelled_count = total, lease_owner = NULL, lease_expires_at = NULL, updated_at = ?
       WHERE id = ? AND status = 'validating' AND lease_owner = ?`,
      code,
      message.slice(0, 1000),
      now,
      id,
      owner,
    ),
  release: (owner: string): Stmt =>
    sql(
      `UPDATE bulk_jobs SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = ? AND status = 'validating'`,
      owner,
    ),
};

/**
 * bulk_jobs as validation moves it: leases (many jobs per unit), progress per chunk (many jobs per
 * statement), the conclusion (`queued`, many per statement; or `rejected`).
 */
@Injectable()
export class BulkJobValidationRepository {
  constructor(private readonly db: UnitOfWork) {}

  /**
   * Leases up to `limit` `validating` jobs whose lease is free or expired, oldest first, in one short
   * unit: rows another transaction holds are skipped where the database can.
   */
  async lease(owner: string, until: number, now: number, limit: number): Promise<ValidationLease[]> {
    const skipLocked = this.db.capabilities.skipLocked;
    return this.db.steps(function* (): Steps<ValidationLease[]> {
      const found = yield* read(validationStatements.candidates(now, limit, skipLocked));
      if (!found.length) return [];
      // The rows are locked by the read above (or the embedded database's one writer is us): all are leased.
      yield validationStatements.lease(
        found.map((l) => l.id),
        owner,
        until,
        now,
      );
      return found;
    });
  }

  /**
   * Chunks validated (one per job): progress and lease renewal in one statement, then the invalid
   * rows' marks, in one unit. Returns the ids still ours (a job cancelled or taken meanwhile is left
   * out, its marks not written).
   */
  *saveProgress(jobs: ChunkProgress[], owner: string, until: number, now: number): Steps<Set<string>> {
    if (!jobs.length) return new Set<string>();
    const r: StmtResult = yield validationStatements.progress(jobs, owner, until, now);
    const ids = jobs.map((j) => j.id);
    let kept = new Set(ids);
    if (r.affected !== jobs.length) kept = new Set(yield* read(validationStatements.stillLeased(ids, owner)));
    for (const j of jobs) if (kept.has(j.id)) for (const m of j.marks) yield m;
    return kept;
  }

  /**
   * Validated jobs with every row valid and payable move to `queued`, in the caller's unit; returns
   * the ids that moved. The jobs are read first by primary key and locked (a concurrent cancel waits,
   * or already won); those still validating under our lease are moved in one UPDATE: the ids returned
   * are exactly the moved ones (one event each, in the same unit).
   */
  *queue(ids: string[], owner: string, now: number): Steps<string[]> {
    if (!ids.length) return [];
    const locked = yield* read(validationStatements.lockForQueue(ids, this.db.capabilities.skipLocked));
    const moving = locked.filter((j) => j.status === 'validating' && j.leaseOwner === owner).map((j) => j.id);
    if (!moving.length) return [];
    yield validationStatements.queue(moving, owner, now);
    return moving;
  }

  /** Nothing is sent: every row not invalid becomes `cancelled`, the counters say so. */
  *reject(id: string, owner: string, code: BulkJobErrorCode, message: string, now: number): Steps<boolean> {
    const r: StmtResult = yield validationStatements.reject(id, owner, code, message, now);
    if (r.affected !== 1) return false;
    yield rowStatements.cancelPending(id);
    return true;
  }

  async release(owner: string): Promise<void> {
    await this.db.run(validationStatements.release(owner));
  }
}
