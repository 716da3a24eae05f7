import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { Request } from 'express';
import type { AuthContext } from '../auth/auth-context';
import { isLiveAccount } from '../accounts/account-mode';
import { ApiError } from '../common/errors';
import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { UnitOfWork } from '../database/unit-of-work';
import type { StmtResult, Steps } from '../database/sql';
import { DeliveryCounts } from '../messaging/delivery-counts';
import { readBulkBody } from './bulk-body-reader';
import { BulkJobView, toJobView } from './bulk-job.view';
import { BulkSettings } from './bulk-settings';
import { canonicalOfStoredJob, RequestFingerprint } from './request-hash';
import {
  checkFields,
  CheckedFields,
  elementProblem,
  Fingerprint,
  PendingRow,
  toPendingRow,
  validKey,
  MAX_KEY,
} from './bulk-request-rules';
import { isUniqueViolation } from '../database/db-errors';
import { BulkJobRepository, IntakeFields, jobStatements, KeyClaim } from './bulk-job.repository';
import { BulkRowRepository, rowStatements, rowValues } from './bulk-row.repository';
import type { BulkJobRecord } from './bulk-records';
import { MAX_JSON_DEPTH } from '../common/json-depth';
import type { AccountId } from '../common/account-id';

/**
 * A batch is also stored once its payloads reach this many characters (at most ~6 MB as UTF-8):
 * with large elements, `intakeBatch` rows would make one statement bigger than a database server's default
 * max_allowed_packet (16 MB) and one long synchronous serialisation.
 */
const MAX_BATCH_CHARS = 1_000_000;

/**
 * POST /messages/bulk: streams the body into an `accepting` job in batches, checks the top-level
 * fields once the body ended (they may come after `messages`), then claims the idempotency key in the
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
    private readonly jobs: BulkJobRepository,
    private readonly rowRepo: BulkRowRepository,
    private readonly delivery: DeliveryCounts,
  ) {
    this.fullBatchValues = rowValues(settings.intakeBatch);
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
    const awaitInflight = async () => {
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
      await awaitInflight().catch(() => undefined);
      if (storeRows) await this.discard(jobId);
      throw err;
    });
    try {
      await awaitInflight();
    } catch (err) {
      if (storeRows) await this.discard(jobId);
      throw err;
    }
    if (outcome.tooLarge) {
      if (storeRows) await this.discard(jobId);
      // The rest of the body stays unread: answer now and close the connection after the answer
      // (Node then destroys the socket) rather than reading what may be gigabytes.
      req.res?.setHeader('Connection', 'close');
      throw new ApiError(
        outcome.tooLarge.element ? 'INVALID_MESSAGE' : 'INVALID_REQUEST_BODY',
        outcome.tooLarge.message,
      );
    }
    if (outcome.aborted) {
      if (storeRows) await this.markIncomplete(jobId);
      throw new ApiError('INVALID_REQUEST_BODY', 'The request body ended before it was complete');
    }
    const fields = (() => {
      try {
        const checked = checkFields(outcome, headerKey, firstBad);
        // Immediate sandbox receipts mean nothing to a real provider: a live key asking for them errs.
        if (checked.instantReceipts && isLiveAccount(auth.accountId))
          throw new ApiError('INVALID_REQUEST_BODY', 'testOptions is for test keys only (msk_test_...)');
        return checked;
      } catch (err) {
        return err as ApiError;
      }
    })();
    if (fields instanceof ApiError) {
      if (storeRows) await this.discard(jobId);
      throw fields;
    }
    if (!storeRows)
      return this.finalize(auth.accountId, null, fields, print.finish(fields.name, fields.mps), outcome.count);
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
    if (!auth.account.subscriptionActive)
      return new ApiError('SUBSCRIPTION_INACTIVE', 'The account subscription is inactive');
    if (headerKey !== undefined && !validKey(headerKey))
      return new ApiError('IDEMPOTENCY_KEY_INVALID', `Idempotency-Key must be 1 to ${MAX_KEY} characters`);
    return null;
  }

  private async findByKey(accountId: AccountId, key: string): Promise<BulkJobRecord | null> {
    const job = await this.jobs.findByKey(accountId, keyHash(key));
    if (!job || job.createdAt < this.clock.now() - this.settings.idempotencyWindowMs) return null;
    return job;
  }

  private async createAcceptingJob(jobId: string, accountId: AccountId): Promise<void> {
    const now = this.clock.now();
    await this.jobs.create(jobId, accountId, this.settings.instanceId, now + this.settings.intakeLeaseMs, now);
  }

  /**
   * Stores one batch and renews the intake lease in one unit of work. The renewal needs the job still
   * `accepting`: once the reaper rejected a stalled upload, the unit of work fails and rolls the batch
   * back (the upload ends with an error).
   */
  private async insertRows(jobId: string, rows: PendingRow[]): Promise<void> {
    const insert = rowStatements.insertBatch(
      jobId,
      rows,
      rows.length === this.settings.intakeBatch ? this.fullBatchValues : undefined,
    );
    const now = this.clock.now();
    const renew = jobStatements.renewIntake(jobId, rows.length, now + this.settings.intakeLeaseMs, now);
    await this.db.steps(function* (): Steps<void> {
      yield insert;
      // Last, so the job row's lock is held only briefly (two batches of a job insert at once).
      const renewed: StmtResult = yield renew;
      if (renewed.affected !== 1) throw abandoned();
    });
  }

  /** Deletes this request's job and its rows, unless it already reached `validating` (then it holds the key). */
  private async discard(jobId: string): Promise<void> {
    await this.db.steps(() => this.jobs.discard(jobId));
  }

  private async markIncomplete(jobId: string): Promise<void> {
    const now = this.clock.now();
    await this.db.steps(() => this.jobs.rejectIncompleteIntake(jobId, now));
  }

  /** Same name, rate and messages as the job holding the key? Raw bytes first, canonical JSON if they differ. */
  private async sameRequest(
    holder: BulkJobRecord,
    ownJobId: string | null,
    f: CheckedFields,
    print: Fingerprint,
  ): Promise<boolean> {
    if (holder.rawHash === print.raw) return true;
    if (holder.name !== f.name || holder.messagesPerSecond !== f.mps || holder.instantReceipts !== f.instantReceipts)
      return false;
    let theirs = holder.requestHash;
    if (theirs === null) {
      theirs = await canonicalOfStoredJob(this.rowRepo, holder.id, holder.name, holder.messagesPerSecond);
      await this.jobs.setRequestHash(holder.id, theirs);
    }
    const mine =
      print.canonical ?? (ownJobId ? await canonicalOfStoredJob(this.rowRepo, ownJobId, f.name, f.mps) : null);
    return mine === theirs;
  }

  /** Claims the key for `jobId` (or finds who holds it). Race-free: the unique index decides. */
  private async finalize(
    accountId: AccountId,
    jobId: string | null,
    f: CheckedFields,
    print: Fingerprint,
    count: number,
  ): Promise<BulkJobView> {
    const windowStart = this.clock.now() - this.settings.idempotencyWindowMs;
    const fields: IntakeFields = {
      name: f.name,
      mps: f.mps,
      instantReceipts: f.instantReceipts,
      total: count,
      key: f.key,
      keyHash: keyHash(f.key),
      rawHash: print.raw,
      requestHash: print.canonical,
    };
    for (let attempt = 0; attempt < 5; attempt++) {
      const now = this.clock.now();
      let result: KeyClaim | null;
      try {
        result = await this.db.steps(() => this.jobs.claimKey(accountId, jobId, fields, windowStart, now));
      } catch (err) {
        if (isUniqueViolation(err)) continue;
        throw err;
      }
      if (result === null) {
        // Only hashed (a holder existed when we started) but it expired meanwhile: rare; ask to resend.
        throw new ApiError(
          'IDEMPOTENCY_CONFLICT',
          'The idempotency key expired while the request was read; send it again',
        );
      }
      if (result.mine) {
        if (!result.job || result.job.status !== 'validating') throw abandoned();
        return toJobView(result.job);
      }
      const holder = result.job;
      const same = await this.sameRequest(holder, jobId, f, print);
      if (jobId !== null) await this.discard(jobId);
      if (!same) throw new ApiError('IDEMPOTENCY_CONFLICT', 'This Idempotency-Key was used with a different body');
      // A replay answers the existing job as it is now, receipts included.
      return toJobView(holder, await this.delivery.ofBulkJob(accountId, holder.id));
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
