import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '../database/unit-of-work';
import { decoders, inList, query, Query, read, sql, SqlParam, Stmt, StmtResult, Steps } from '../database/sql';
import { BulkJobRecord, JobStatus, LiveCount, toJobRecord, toLiveCount } from './bulk-records';
import { rowStatements } from './bulk-row.repository';
import type { AccountId } from '../common/account-id';

/** What intake records once the body ended (the idempotency claim moves the job to `validating`). */
export interface IntakeFields {
  name: string | null;
  mps: number;
  instantReceipts: boolean;
  total: number;
  key: string;
  keyHash: string;
  rawHash: string;
  requestHash: string | null;
}

/** Who holds an idempotency key: another job (inside the window), or ours, read back after the claim. */
export type KeyClaim = { mine: false; job: BulkJobRecord } | { mine: true; job: BulkJobRecord | null };

/** Jobs that may still change status (finished ones only ever grow in number). */
export const LIVE_STATUSES: JobStatus[] = ['accepting', 'validating', 'queued', 'running', 'paused'];

/** A read of whole bulk_jobs rows (`SELECT *`). */
const jobsOf = (stmt: Stmt): Query<BulkJobRecord> => query(toJobRecord, stmt);

/**
 * Statements of bulk_jobs for intake and the job routes, as pure builders (the plans test runs EXPLAIN
 * on them). The loops' statements are in bulk-job-leases.repository.ts (leases, turns) and
 * bulk-job-windows.repository.ts (windows).
 */
export const jobStatements = {
  create: (id: string, accountId: AccountId, owner: string, leaseUntil: number, now: number): Stmt =>
    sql(
      `INSERT INTO bulk_jobs (id, account_id, name, status, messages_per_second, total, validated_count, pending_count, sent_count, failed_count, cancelled_count, invalid_count, lease_owner, lease_expires_at, created_at, updated_at)
       VALUES (?, ?, NULL, 'accepting', 0, 0, 0, 0, 0, 0, 0, 0, ?, ?, ?, ?)`,
      id,
      accountId,
      owner,
      leaseUntil,
      now,
      now,
    ),
  /** A stored intake batch: the total grows and the intake lease is renewed, only while `accepting`. */
  renewIntake: (id: string, rows: number, leaseUntil: number, now: number): Stmt =>
    sql(
      `UPDATE bulk_jobs SET total = total + ?, lease_expires_at = ?, updated_at = ? WHERE id = ? AND status = 'accepting'`,
      rows,
      leaseUntil,
      now,
      id,
    ),
  byKey: (accountId: AccountId, keyHash: string): Query<BulkJobRecord> =>
    jobsOf(sql('SELECT * FROM bulk_jobs WHERE account_id = ? AND idempotency_key_hash = ?', accountId, keyHash)),
  byId: (id: string): Query<BulkJobRecord> => jobsOf(sql('SELECT * FROM bulk_jobs WHERE id = ?', id)),
  byIds: (ids: readonly string[]): Query<BulkJobRecord> =>
    jobsOf(sql(`SELECT * FROM bulk_jobs WHERE id IN (${inList(ids.length)}) ORDER BY id`, ...ids)),
  owned: (accountId: AccountId, id: string): Query<BulkJobRecord> =>
    jobsOf(sql('SELECT * FROM bulk_jobs WHERE id = ? AND account_id = ?', id, accountId)),
  ownedPage: (accountId: AccountId, before: string | null, limit: number): Query<BulkJobRecord> =>
    jobsOf(
      before === null
        ? sql(`SELECT * FROM bulk_jobs WHERE account_id = ? ORDER BY id DESC LIMIT ${limit}`, accountId)
        : sql(
            `SELECT * FROM bulk_jobs WHERE account_id = ? AND id < ? ORDER BY id DESC LIMIT ${limit}`,
            accountId,
            before,
          ),
    ),
  releaseKey: (id: string): Stmt => sql('UPDATE bulk_jobs SET idempotency_key_hash = NULL WHERE id = ?', id),
  startValidation: (id: string, f: IntakeFields, now: number): Stmt =>
    sql(
      `UPDATE bulk_jobs SET status = 'validating', name = ?, messages_per_second = ?, instant_receipts = ?, total = ?, pending_count = ?, idempotency_key = ?, idempotency_key_hash = ?, raw_hash = ?, request_hash = ?, lease_owner = NULL, lease_expires_at = NULL, updated_at = ? WHERE id = ? AND status = 'accepting'`,
      f.name,
      f.mps,
      f.instantReceipts ? 1 : 0,
      f.total,
      f.total,
      f.key,
      f.keyHash,
      f.rawHash,
      f.requestHash,
      now,
      id,
    ),
  setRequestHash: (id: string, hash: string): Stmt =>
    sql('UPDATE bulk_jobs SET request_hash = ? WHERE id = ?', hash, id),
  deleteUnlessValidating: (id: string): Stmt =>
    sql(`DELETE FROM bulk_jobs WHERE id = ? AND status <> 'validating'`, id),
  rejectIncompleteIntake: (id: string, now: number, leaseExpiredBefore?: number): Stmt => {
    const params: SqlParam[] = ['The upload stopped before every row was stored', now, id];
    if (leaseExpiredBefore !== undefined) params.push(leaseExpiredBefore);
    return sql(
      `UPDATE bulk_jobs SET status = 'rejected', error_code = 'INTAKE_INCOMPLETE', error_message = ?, total = 0, lease_owner = NULL, lease_expires_at = NULL, updated_at = ?
       WHERE id = ? AND status = 'accepting'${leaseExpiredBefore === undefined ? '' : ' AND (lease_expires_at IS NULL OR lease_expires_at < ?)'}`,
      ...params,
    );
  },
  staleIntakes: (now: number, limit: number): Query<string> =>
    query(
      decoders.id,
      sql(
        `SELECT id FROM bulk_jobs WHERE status = 'accepting' AND (lease_expires_at IS NULL OR lease_expires_at < ?) ORDER BY id LIMIT ${limit}`,
        now,
      ),
    ),
  pause: (id: string, now: number): Stmt =>
    sql(
      `UPDATE bulk_jobs SET status = 'paused', pause_reason = 'user', resume_at = NULL, updated_at = ?
       WHERE id = ? AND (status IN ('queued', 'running') OR (status = 'paused' AND pause_reason <> 'user'))`,
      now,
      id,
    ),
  resume: (id: string, now: number): Stmt =>
    sql(
      `UPDATE bulk_jobs SET status = 'queued', pause_reason = NULL, resume_at = NULL, updated_at = ? WHERE id = ? AND status = 'paused'`,
      now,
      id,
    ),
  cancel: (id: string, now: number): Stmt =>
    sql(
      `UPDATE bulk_jobs SET status = 'cancelled', pause_reason = NULL, resume_at = NULL, updated_at = ? WHERE id = ? AND status IN ('validating', 'queued', 'running', 'paused')`,
      now,
      id,
    ),
  /** Counters after `n` pending rows were cancelled. */
  countCancelled: (id: string, n: number, now: number): Stmt =>
    sql(
      'UPDATE bulk_jobs SET pending_count = pending_count - ?, cancelled_count = cancelled_count + ?, updated_at = ? WHERE id = ?',
      n,
      n,
      now,
      id,
    ),
  requeueRetried: (id: string, n: number, now: number): Stmt =>
    sql(
      `UPDATE bulk_jobs SET status = 'queued', pause_reason = NULL, resume_at = NULL, pending_count = pending_count + ?, failed_count = failed_count - ?, updated_at = ? WHERE id = ?`,
      n,
      n,
      now,
      id,
    ),
  liveCounts: (): Query<LiveCount> =>
    query(
      toLiveCount,
      sql(
        `SELECT status, COUNT(*) AS jobs, SUM(pending_count) AS pending FROM bulk_jobs WHERE status IN (${inList(LIVE_STATUSES.length)}) GROUP BY status`,
        ...LIVE_STATUSES,
      ),
    ),
};

const first = <T>(records: T[]): T | null => records[0] ?? null;

/**
 * bulk_jobs for intake and the job routes: typed records and named state changes. A state change
 * written as `Steps` joins the caller's open unit of work (run it with `uow.steps` inside
 * `uow.transaction`, or `yield*` it), so an event can be recorded in the same transaction.
 */
@Injectable()
export class BulkJobRepository {
  constructor(private readonly db: UnitOfWork) {}

  async create(id: string, accountId: AccountId, owner: string, leaseUntil: number, now: number): Promise<void> {
    await this.db.run(jobStatements.create(id, accountId, owner, leaseUntil, now));
  }

  /** Jobs by id, whoever owns them (the loops and their events; routes use `findOwned`), in id order. */
  async findByIds(ids: readonly string[]): Promise<BulkJobRecord[]> {
    if (!ids.length) return [];
    return this.db.read(ids.length === 1 ? jobStatements.byId(ids[0]) : jobStatements.byIds(ids));
  }

  async findByKey(accountId: AccountId, keyHash: string): Promise<BulkJobRecord | null> {
    return first(await this.db.read(jobStatements.byKey(accountId, keyHash)));
  }

  /** The account's job (tenancy: by account id first); null when it is not theirs or does not exist. */
  async findOwned(accountId: AccountId, id: string): Promise<BulkJobRecord | null> {
    return first(await this.db.read(jobStatements.owned(accountId, id)));
  }

  async listOwned(accountId: AccountId, before: string | null, limit: number): Promise<BulkJobRecord[]> {
    return this.db.read(jobStatements.ownedPage(accountId, before, limit));
  }

  /**
   * The idempotency claim: the holder of the key inside the window, or (when `id` is given) the key
   * taken for `id`, moved to `validating` and read back. A key past the window is let go first. A
   * concurrent claim fails on the unique index (the caller tries again).
   */
  *claimKey(
    accountId: AccountId,
    id: string | null,
    f: IntakeFields,
    windowStart: number,
    now: number,
  ): Steps<KeyClaim | null> {
    const holder = first(yield* read(jobStatements.byKey(accountId, f.keyHash)));
    if (holder && holder.createdAt >= windowStart) return { mine: false, job: holder };
    if (holder) yield jobStatements.releaseKey(holder.id);
    if (id === null) return null;
    yield jobStatements.startValidation(id, f, now);
    return { mine: true, job: first(yield* read(jobStatements.byId(id))) };
  }

  async setRequestHash(id: string, hash: string): Promise<void> {
    await this.db.run(jobStatements.setRequestHash(id, hash));
  }

  /** Deletes a job and its rows unless it already reached `validating` (then it holds its key). */
  *discard(id: string): Steps<void> {
    const r: StmtResult = yield jobStatements.deleteUnlessValidating(id);
    if (r.affected) yield rowStatements.deleteOfJob(id);
  }

  /**
   * An `accepting` job becomes `rejected` / INTAKE_INCOMPLETE and loses its rows. The reaper passes
   * `leaseExpiredBefore`, so an upload still renewing its lease is left alone. Returns 1 when rejected.
   */
  *rejectIncompleteIntake(id: string, now: number, leaseExpiredBefore?: number): Steps<number> {
    const r: StmtResult = yield jobStatements.rejectIncompleteIntake(id, now, leaseExpiredBefore);
    if (r.affected) yield rowStatements.deleteOfJob(id);
    return r.affected;
  }

  async staleIntakes(now: number, limit: number): Promise<string[]> {
    return this.db.read(jobStatements.staleIntakes(now, limit));
  }

  /** User pause (also of a job paused for another reason). Returns whether the job moved. */
  async pause(id: string, now: number): Promise<boolean> {
    return (await this.db.exec(jobStatements.pause(id, now))) === 1;
  }

  async resume(id: string, now: number): Promise<boolean> {
    return (await this.db.exec(jobStatements.resume(id, now))) === 1;
  }

  /** The job and its pending rows cancelled (rows of the window in flight, and rows held `sending`, are left to the runner or the reaper). */
  *cancel(id: string, now: number): Steps<boolean> {
    const r: StmtResult = yield jobStatements.cancel(id, now);
    if (r.affected === 0) return false;
    const rows: StmtResult = yield rowStatements.cancelPending(id);
    yield jobStatements.countCancelled(id, rows.affected, now);
    return true;
  }

  /** Pending rows of a cancelled job (put back after the cancel, unpaid) cancelled too; returns how many. */
  *cancelLeftoverRows(id: string, now: number): Steps<number> {
    const rows: StmtResult = yield rowStatements.cancelPending(id);
    if (rows.affected) yield jobStatements.countCancelled(id, rows.affected, now);
    return rows.affected;
  }

  /** Every failed row back to `pending` (a new attempt, a new message id), the job `queued`; read back. */
  *retryFailed(id: string, now: number): Steps<{ retried: number; job: BulkJobRecord | null }> {
    const rows: StmtResult = yield rowStatements.retryFailed(id);
    if (rows.affected === 0) return { retried: 0, job: null };
    yield jobStatements.requeueRetried(id, rows.affected, now);
    return { retried: rows.affected, job: first(yield* read(jobStatements.byId(id))) };
  }

  /** Jobs per live status and their pending rows, from the jobs' own counters. */
  async liveCounts(): Promise<{ jobs: Record<string, number>; pending: number }> {
    const jobs: Record<string, number> = Object.fromEntries(LIVE_STATUSES.map((s) => [s, 0]));
    let pending = 0;
    for (const c of await this.db.read(jobStatements.liveCounts())) {
      jobs[c.status] = c.jobs;
      pending += c.pending;
    }
    return { jobs, pending };
  }
}
