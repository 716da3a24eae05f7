import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { Request } from 'express';
import type { AuthContext } from '../auth/auth-context';
import { ApiError } from '../common/errors';
import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { UnitOfWork } from '../database/unit-of-work';
import { sql, SqlParam, Stmt, StmtResult, Steps } from '../database/sql';
import { DeliveryCounts } from '../messaging/delivery-counts';
import { readBulkBody } from './bulk-body-reader';
import { BulkJobView, JobRow, toJobView } from './bulk-job.view';
import { BulkSettings } from './bulk-settings';
import { canonicalOfStoredJob, RequestFingerprint } from './request-hash';
import { checkFields, CheckedFields, elementProblem, Fingerprint, PendingRow, rowPlaceholders, toPendingRow, validKey, MAX_KEY } from './bulk-request-rules';
import { isUniqueViolation } from '../database/db-errors';
import { rejectIncompleteIntake } from './intake-rejection';
import { MAX_JSON_DEPTH } from '../common/json-depth';

/**
 * A batch is also stored once its payloads reach this many characters (at most ~6 MB as UTF-8):
 * with large elements, `intakeBatch` rows would make one statement bigger than a database server's default
 * max_allowed_packet (16 MB) and one long synchronous serialisation.
 */
const MAX_BATCH_CHARS = 1_000_000;

/**
 * POST /messages/bulk: streams the body into an `accepting` job in batches, checks the top-level
 * fields once the body ended (they may come after `messages`), then settles idempotency in the
 * database (unique (account, key) index) and moves the job to `validating`.
 */
@Injectable()
export class BulkIntakeService {
  /** VALUES list of a full batch, built once (other sizes occur once per request: built as needed). */
  private readonly fullBatchValues: string;

  constructor(
    private readonly db: UnitOfWork,
    private readonly clock: Clock,
    private readonly settings: BulkSettings,
    private readonly delivery: DeliveryCounts,
  ) {
    this.fullBatchValues = rowPlaceholders(settings.intakeBatch);
  }

  async accept(auth: AuthContext, req: Request): Promise<BulkJobView> {
    const header = req.headers['idempotency-key'];
    const headerKey = Array.isArray(header) ? header[0] : header;
    const early = this.earlyError(auth, headerKey);
    if (early) {
      req.resume();
      throw early;
    }
    // A finished job already holds this key: only hash the body to compare, store nothing.
    const existing = headerKey !== undefined ? await this.findByKey(auth.accountId, headerKey) : null;
    const storeRows = existing === null;
    const jobId = newId('bulk');
    if (storeRows) await this.createAcceptingJob(jobId, auth.accountId);
    // A replay (nothing stored) computes the canonical fingerprint as it streams.
    const print = new RequestFingerprint(!storeRows);
    let firstBad: string | null = null;
    let batch: PendingRow[] = [];
    let batchChars = 0;
    // Where writes overlap (pooled connections), up to two batches insert while the next is parsed;
    // otherwise each batch is inserted before parsing goes on.
    const inflight: Promise<void>[] = [];
    const settleInflight = async () => {
      const results = await Promise.allSettled(inflight.splice(0));
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    };
    const limits = { maxValueBytes: this.settings.maxElementBytes, maxDepth: MAX_JSON_DEPTH };
    const outcome = await readBulkBody(req, limits, (index, value, text) => {
      const problem = elementProblem(value);
      if (problem) {
        firstBad ??= `messages[${index}] ${problem}`;
        return;
      }
      if (firstBad) return;
      const el = value as Record<string, unknown>;
      print.add(text, el);
      if (!storeRows) return;
      batch.push(toPendingRow(index, el, text));
      batchChars += text.length;
      if (batch.length >= this.settings.intakeBatch || batchChars >= MAX_BATCH_CHARS) {
        const rows = batch;
        batch = [];
        batchChars = 0;
        if (!this.db.capabilities.concurrentWrites) return this.insertRows(jobId, rows);
        const start = () => {
          const p = this.insertRows(jobId, rows);
          p.catch(() => undefined);
          inflight.push(p);
        };
        if (inflight.length < 2) return start();
        return (inflight.shift() as Promise<void>).then(start);
      }
    }).catch(async (err: unknown) => {
      await settleInflight().catch(() => undefined);
      if (storeRows) await this.discard(jobId);
      throw err;
    });
    try {
      await settleInflight();
    } catch (err) {
      if (storeRows) await this.discard(jobId);
      throw err;
    }
    if (outcome.tooLarge) {
      if (storeRows) await this.discard(jobId);
      // The rest of the body stays unread: answer now and close the connection after the answer
      // (Node then destroys the socket) rather than reading what may be gigabytes.
      req.res?.setHeader('Connection', 'close');
      throw new ApiError(outcome.tooLarge.element ? 'INVALID_MESSAGE' : 'INVALID_REQUEST_BODY', outcome.tooLarge.message);
    }
    if (outcome.aborted) {
      if (storeRows) await this.markIncomplete(jobId);
      throw new ApiError('INVALID_REQUEST_BODY', 'The request body ended before it was complete');
    }
    const fields = (() => {
      try {
        return checkFields(outcome, headerKey, firstBad);
      } catch (err) {
        return err as ApiError;
      }
    })();
    if (fields instanceof ApiError) {
      if (storeRows) await this.discard(jobId);
      throw fields;
    }
    if (!storeRows) return this.finalize(auth.accountId, null, fields, print.finish(fields.name, fields.mps), outcome.count);
    try {
      if (batch.length) await this.insertRows(jobId, batch);
      return await this.finalize(auth.accountId, jobId, fields, print.finish(fields.name, fields.mps), outcome.count);
    } catch (err) {
      // Whatever failed (the job abandoned, retries exhausted, a database error): nothing of it stays.
      // Should the discard fail too, the reaper rejects the job once its intake lease expired.
      await this.discard(jobId).catch(() => undefined);
      throw err;
    }
  }

  private earlyError(auth: AuthContext, headerKey: string | undefined): ApiError | null {
    if (!auth.account.subscriptionActive) return new ApiError('SUBSCRIPTION_INACTIVE', 'The account subscription is inactive');
    if (headerKey !== undefined && !validKey(headerKey)) return new ApiError('IDEMPOTENCY_KEY_INVALID', `Idempotency-Key must be 1 to ${MAX_KEY} characters`);
    return null;
  }

  private async findByKey(accountId: string, key: string): Promise<JobRow | null> {
    const rows = await this.db.rows(sql('SELECT * FROM bulk_jobs WHERE account_id = ? AND idempotency_key_hash = ?', accountId, keyHash(key)));
    const row = rows[0];
    if (!row || Number(row.created_at) < this.clock.now() - this.settings.idempotencyWindowMs) return null;
    return row;
  }

  private async createAcceptingJob(jobId: string, accountId: string): Promise<void> {
    const now = this.clock.now();
    await this.db.run(
      sql(
        `INSERT INTO bulk_jobs (id, account_id, name, status, messages_per_second, total, validated_count, pending_count, sent_count, failed_count, cancelled_count, invalid_count, lease_owner, lease_expires_at, created_at, updated_at)
         VALUES (?, ?, NULL, 'accepting', 0, 0, 0, 0, 0, 0, 0, 0, ?, ?, ?, ?)`,
        jobId, accountId, this.settings.instanceId, now + this.settings.intakeLeaseMs, now, now,
      ),
    );
  }

  /**
   * Stores one batch and renews the intake lease in one unit of work. The renewal needs the job still
   * `accepting`: once the reaper rejected a stalled upload, the unit of work fails and rolls the batch
   * back (the upload ends with an error).
   */
  private async insertRows(jobId: string, rows: PendingRow[]): Promise<void> {
    const params: SqlParam[] = [];
    for (const r of rows) params.push(jobId, r.idx, r.to, r.channel, r.payload);
    const values = rows.length === this.settings.intakeBatch ? this.fullBatchValues : rowPlaceholders(rows.length);
    const insert: Stmt = { sql: `INSERT INTO bulk_rows (job_id, idx, status, to_addr, channel, payload, attempt) VALUES ${values}`, params };
    const now = this.clock.now();
    const renew = sql(
      `UPDATE bulk_jobs SET total = total + ?, lease_expires_at = ?, updated_at = ? WHERE id = ? AND status = 'accepting'`,
      rows.length, now + this.settings.intakeLeaseMs, now, jobId,
    );
    await this.db.steps(function* (): Steps<void> {
      yield insert;
      // Last, so the job row's lock is held only briefly (two batches of a job insert at once).
      const renewed: StmtResult = yield renew;
      if (renewed.affected !== 1) throw abandoned();
    });
  }

  /** Deletes this request's job and its rows, unless it already reached `validating` (then it holds the key). */
  private async discard(jobId: string): Promise<void> {
    await this.db.steps(function* (): Steps<void> {
      const r: StmtResult = yield sql(`DELETE FROM bulk_jobs WHERE id = ? AND status <> 'validating'`, jobId);
      if (r.affected) yield sql('DELETE FROM bulk_rows WHERE job_id = ?', jobId);
    });
  }

  private async markIncomplete(jobId: string): Promise<void> {
    const now = this.clock.now();
    await this.db.steps(() => rejectIncompleteIntake(jobId, now));
  }

  /** Same name, rate and messages as the job holding the key? Raw bytes first, canonical JSON if they differ. */
  private async sameRequest(holder: JobRow, ownJobId: string | null, f: CheckedFields, print: Fingerprint): Promise<boolean> {
    if (holder.raw_hash === print.raw) return true;
    const holderName = holder.name === null ? null : String(holder.name);
    const holderMps = Number(holder.messages_per_second);
    if (holderName !== f.name || holderMps !== f.mps) return false;
    let theirs = holder.request_hash === null || holder.request_hash === undefined ? null : String(holder.request_hash);
    if (theirs === null) {
      theirs = await canonicalOfStoredJob(this.db, String(holder.id), holderName, holderMps);
      await this.db.run(sql('UPDATE bulk_jobs SET request_hash = ? WHERE id = ?', theirs, String(holder.id)));
    }
    const mine = print.canonical ?? (ownJobId ? await canonicalOfStoredJob(this.db, ownJobId, f.name, f.mps) : null);
    return mine === theirs;
  }

  /** Claims the key for `jobId` (or finds who holds it). Race-free: the unique index decides. */
  private async finalize(accountId: string, jobId: string | null, f: CheckedFields, print: Fingerprint, count: number): Promise<BulkJobView> {
    const windowStart = this.clock.now() - this.settings.idempotencyWindowMs;
    for (let attempt = 0; attempt < 5; attempt++) {
      const now = this.clock.now();
      let result: { mine: boolean; row: JobRow } | null;
      try {
        result = await this.db.steps(function* (): Steps<{ mine: boolean; row: JobRow } | null> {
          const found: StmtResult = yield sql('SELECT * FROM bulk_jobs WHERE account_id = ? AND idempotency_key_hash = ?', accountId, keyHash(f.key));
          const holder = found.rows[0];
          if (holder && Number(holder.created_at) >= windowStart) return { mine: false, row: holder };
          // After the window the key may be reused: the old job lets go of it.
          if (holder) yield sql('UPDATE bulk_jobs SET idempotency_key_hash = NULL WHERE id = ?', String(holder.id));
          if (jobId === null) return null;
          yield sql(
            `UPDATE bulk_jobs SET status = 'validating', name = ?, messages_per_second = ?, total = ?, pending_count = ?, idempotency_key = ?, idempotency_key_hash = ?, raw_hash = ?, request_hash = ?, lease_owner = NULL, lease_expires_at = NULL, updated_at = ? WHERE id = ? AND status = 'accepting'`,
            f.name, f.mps, count, count, f.key, keyHash(f.key), print.raw, print.canonical, now, jobId,
          );
          const mine: StmtResult = yield sql('SELECT * FROM bulk_jobs WHERE id = ?', jobId);
          return { mine: true, row: mine.rows[0] };
        });
      } catch (err) {
        if (isUniqueViolation(err)) continue;
        throw err;
      }
      if (result === null) {
        // Only hashed (a holder existed when we started) but it expired meanwhile: rare; ask to resend.
        throw new ApiError('IDEMPOTENCY_CONFLICT', 'The idempotency key expired while the request was read; send it again');
      }
      if (result.mine) {
        if (!result.row || result.row.status !== 'validating') throw abandoned();
        return toJobView(result.row);
      }
      const same = await this.sameRequest(result.row, jobId, f, print);
      if (jobId !== null) await this.discard(jobId);
      if (!same) throw new ApiError('IDEMPOTENCY_CONFLICT', 'This Idempotency-Key was used with a different body');
      // A replay answers the existing job as it is now, receipts included.
      return toJobView(result.row, await this.delivery.ofBulkJob(accountId, String(result.row.id)));
    }
    throw new ApiError('IDEMPOTENCY_CONFLICT', 'The idempotency key is being used concurrently; retry');
  }
}

/** The reaper rejected the job (its intake lease expired: the upload stalled) before the upload completed. */
function abandoned(): ApiError {
  return new ApiError('INVALID_REQUEST_BODY', 'The job was abandoned before its upload completed');
}

function keyHash(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
