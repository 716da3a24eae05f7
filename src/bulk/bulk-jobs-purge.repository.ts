import { Injectable, OnModuleInit } from '@nestjs/common';
import type { AccountId } from '../common/account-id';
import { BulkJobsPurge, Purged, PurgedTable, RetentionPurges } from '../common/retention/retention-purges';
import { decoders, query, sql, type Query, type Row, type Stmt, numOrNull } from '../database/sql';
import { UnitOfWork } from '../database/unit-of-work';

/** A job is settled once final with nothing pending and no runner holding it. */
const SETTLED_JOB = `status IN ('completed', 'rejected', 'cancelled') AND pending_count = 0 AND lease_owner IS NULL`;

/** `MIN(idx) AS idx`: a job's lowest row index, null when it has no row left. */
const toFirstIdx = (r: Row): number | null => numOrNull(r.idx);

const OLDEST = {
  bulk_jobs: 'SELECT MIN(id) AS k FROM bulk_jobs',
  bulk_rows: 'SELECT MIN(job_id) AS k FROM bulk_rows',
} as const;
type BulkTable = keyof typeof OLDEST;

/** Retention's statements on bulk_jobs and bulk_rows, each bounded and by an index range (exported for the plans test). */
export const bulkPurgeStatements = {
  /** Settled jobs created before `beforeId` and unchanged since `before` (ix_bulk_jobs_account). */
  expiredJobs: (accountId: AccountId, beforeId: string, before: number, limit: number): Query<string> =>
    query(
      decoders.id,
      sql(
        `SELECT id FROM bulk_jobs WHERE account_id = ? AND id < ? AND ${SETTLED_JOB} AND +updated_at < ? ORDER BY id LIMIT ${limit}`,
        accountId,
        beforeId,
        before,
      ),
    ),
  /** A row still to send (pending or taken): the job is kept (ix_bulk_rows_status). */
  liveRow: (jobId: string): Query<number | null> =>
    query(
      toFirstIdx,
      sql(`SELECT idx FROM bulk_rows WHERE job_id = ? AND status IN ('pending', 'sending') LIMIT 1`, jobId),
    ),
  firstRow: (jobId: string): Query<number | null> =>
    query(toFirstIdx, sql('SELECT MIN(idx) AS idx FROM bulk_rows WHERE job_id = ?', jobId)),
  deleteRows: (jobId: string, from: number, to: number): Stmt =>
    sql('DELETE FROM bulk_rows WHERE job_id = ? AND idx >= ? AND idx < ?', jobId, from, to),
  deleteJob: (jobId: string): Stmt => sql(`DELETE FROM bulk_jobs WHERE id = ? AND ${SETTLED_JOB}`, jobId),
  oldest: (table: BulkTable): Query<string | null> => query(decoders.k, sql(OLDEST[table])),
};

/** Bulk's part of retention: settled jobs with their rows, in chunks of rows. */
@Injectable()
export class BulkJobsPurgeRepository implements BulkJobsPurge, OnModuleInit {
  readonly tables: readonly PurgedTable[] = Object.keys(OLDEST) as BulkTable[];

  constructor(
    private readonly uow: UnitOfWork,
    private readonly purges: RetentionPurges,
  ) {}

  onModuleInit(): void {
    this.purges.provide('bulkJobs', this);
  }

  expiredJobIds(accountId: AccountId, beforeId: string, before: number, limit: number): Promise<string[]> {
    return this.uow.read(bulkPurgeStatements.expiredJobs(accountId, beforeId, before, limit));
  }

  /**
   * Deletes up to `batch` rows of a settled job (lowest index first), and the job with its last rows;
   * nothing while a row is still to send. Returns what went and whether the job is gone.
   */
  async deleteJobChunk(jobId: string, batch: number): Promise<{ purged: Purged; done: boolean }> {
    if ((await this.uow.read(bulkPurgeStatements.liveRow(jobId))).length) return { purged: {}, done: true };
    const [from = null] = await this.uow.read(bulkPurgeStatements.firstRow(jobId));
    return this.uow.transaction(async (tx) => {
      const rows = from === null ? 0 : await tx.exec(bulkPurgeStatements.deleteRows(jobId, from, from + batch));
      const [left = null] = from === null ? [] : await tx.read(bulkPurgeStatements.firstRow(jobId));
      if (left !== null) return { purged: { bulk_rows: rows }, done: false };
      const jobs = await tx.exec(bulkPurgeStatements.deleteJob(jobId));
      return { purged: { bulk_rows: rows, bulk_jobs: jobs }, done: true };
    });
  }

  async oldestKey(table: PurgedTable): Promise<string | null> {
    const [k] = await this.uow.read(bulkPurgeStatements.oldest(table as BulkTable));
    return k ?? null;
  }
}
