import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '../database/unit-of-work';
import { inList, num, query, sql, type Query, type SqlParam, type Stmt } from '../database/sql';
import { BulkRowRecord, RowStatus, toRowRecord } from './bulk-records';
import { unionOfJobs } from './job-rows-sql';

/** A row as intake stores it. */
export interface NewRow {
  idx: number;
  to: string | null;
  channel: string | null;
  payload: string;
}

/** Rows of one job from index `from`, at most `limit`. */
export interface RowSpan {
  jobId: string;
  from: number;
  limit: number;
}

/** A row's problem found by validation. */
export interface InvalidRow {
  idx: number;
  code: string;
  message: string;
}

/** Invalid rows marked per statement (5 parameters a row: well under every dialect's limit). */
export const MARK_CHUNK = 500;
/** A report row's columns (its message's facts come from messaging: bulk-row-report.ts). */
const REPORT_COLUMNS = 'idx, status, to_addr, channel, purpose, message_id, error_code, error_message, sent_at';

/** `(?, ?, 'pending', ?, ?, ?, 0)` n times: the VALUES of a multi-row insert (the caller keeps the one of its full batch). */
export function rowValues(n: number): string {
  return Array.from({ length: n }, () => "(?, ?, 'pending', ?, ?, ?, 0)").join(', ');
}

/** Not in the job's window in flight (two parameters: the job's id, twice). */
const OUTSIDE_WINDOW =
  'NOT (idx BETWEEN COALESCE((SELECT window_from FROM bulk_jobs WHERE id = ?), 0) AND COALESCE((SELECT window_to FROM bulk_jobs WHERE id = ?), -1))';

/**
 * Statements of bulk_rows outside a dispatch window (intake, validation, cancel, retry, pacing, the
 * report), as pure builders (the plans test runs EXPLAIN on them); a window's are windowRowStatements.
 */
export const rowStatements = {
  insertBatch: (jobId: string, rows: NewRow[], values = rowValues(rows.length)): Stmt => {
    const params: SqlParam[] = [];
    for (const r of rows) params.push(jobId, r.idx, r.to, r.channel, r.payload);
    return {
      sql: `INSERT INTO bulk_rows (job_id, idx, status, to_addr, channel, payload, attempt) VALUES ${values}`,
      params,
    };
  },
  deleteOfJob: (jobId: string): Stmt => sql('DELETE FROM bulk_rows WHERE job_id = ?', jobId),
  /** Rows of a job from index `from` in index order, with their payloads (validation, fingerprints). */
  payloads: (jobId: string, from: number, limit: number): Query<BulkRowRecord> =>
    query(
      (r) => toRowRecord(r, jobId),
      sql(
        `SELECT idx, channel, payload FROM bulk_rows WHERE job_id = ? AND idx >= ? ORDER BY idx LIMIT ${limit}`,
        jobId,
        from,
      ),
    ),
  /** The same for several jobs in one statement: each job's range read in index order, one after the other. */
  payloadsOfJobs: (spans: RowSpan[]): Query<BulkRowRecord> =>
    query(
      (r) => toRowRecord(r, String(r.job_id)),
      unionOfJobs(spans, (s) =>
        sql(
          `SELECT job_id, idx, channel, payload FROM bulk_rows WHERE job_id = ? AND idx >= ? ORDER BY idx LIMIT ${Math.floor(s.limit)}`,
          s.jobId,
          s.from,
        ),
      ),
    ),
  /** One UPDATE marks rows invalid, each with its own error (CASE on idx). */
  markInvalid: (jobId: string, rows: InvalidRow[]): Stmt => {
    const cases = rows.map(() => 'WHEN ? THEN ?').join(' ');
    const codes: SqlParam[] = [];
    const messages: SqlParam[] = [];
    for (const r of rows) {
      codes.push(r.idx, r.code);
      messages.push(r.idx, r.message);
    }
    return {
      sql: `UPDATE bulk_rows SET status = 'invalid', error_code = CASE idx ${cases} END, error_message = CASE idx ${cases} END WHERE job_id = ? AND idx IN (${inList(rows.length)})`,
      params: [...codes, ...messages, jobId, ...rows.map((r) => r.idx)],
    };
  },
  /** Rows whose message is marketing (validation found it: the request, the template or the sender said so). */
  markMarketing: (jobId: string, idxs: number[]): Stmt =>
    sql(
      `UPDATE bulk_rows SET purpose = 'marketing' WHERE job_id = ? AND idx IN (${inList(idxs.length)})`,
      jobId,
      ...idxs,
    ),
  /** The first row in `status` (of it, `columns` only). */
  firstOfStatus: (jobId: string, status: RowStatus, columns: string): Query<BulkRowRecord> =>
    query(
      (r) => ({ ...toRowRecord(r, jobId), status }),
      sql(`SELECT ${columns} FROM bulk_rows WHERE job_id = ? AND status = ? ORDER BY idx LIMIT 1`, jobId, status),
    ),
  /** Pending rows cancelled, except those of the window in flight (its runner, or the reaper after a crash, settles them). */
  cancelPending: (jobId: string): Stmt =>
    sql(
      `UPDATE bulk_rows SET status = 'cancelled' WHERE job_id = ? AND status = 'pending' AND ${OUTSIDE_WINDOW}`,
      jobId,
      jobId,
      jobId,
    ),
  retryFailed: (jobId: string): Stmt =>
    sql(
      `UPDATE bulk_rows SET status = 'pending', attempt = attempt + 1, message_id = NULL, error_code = NULL, error_message = NULL, sent_at = NULL WHERE job_id = ? AND status = 'failed'`,
      jobId,
    ),
  /** When the job's rows sent since `since` were sent (epoch ms). */
  recentSends: (jobId: string, since: number): Query<number> =>
    query(
      (r) => num(r.sent_at),
      sql('SELECT sent_at FROM bulk_rows WHERE job_id = ? AND sent_at >= ? ORDER BY sent_at', jobId, since),
    ),
  /** Rows of a job after index `from`, in index order, optionally of one stored status (the rows report). */
  page: (jobId: string, status: string | null, from: number | null, limit: number): Query<BulkRowRecord> => {
    const params: SqlParam[] = [jobId];
    let where = 'job_id = ?';
    if (status !== null) {
      where += ' AND status = ?';
      params.push(status);
    }
    if (from !== null) {
      where += ' AND idx > ?';
      params.push(from);
    }
    return query(
      (r) => toRowRecord(r, jobId),
      sql(`SELECT ${REPORT_COLUMNS} FROM bulk_rows WHERE ${where} ORDER BY idx LIMIT ${limit}`, ...params),
    );
  },
};

/**
 * bulk_rows: typed records and named state changes, but for the rows of dispatch windows
 * (window-rows.repository.ts).
 */
@Injectable()
export class BulkRowRepository {
  constructor(private readonly db: UnitOfWork) {}

  /** Rows from index `from` with their payloads (validation chunks, fingerprints of a stored job). */
  async payloads(jobId: string, from: number, limit: number): Promise<BulkRowRecord[]> {
    return this.db.read(rowStatements.payloads(jobId, from, limit));
  }

  /** The rows of several jobs' spans in one statement, per job in index order. */
  async payloadsOfJobs(spans: RowSpan[]): Promise<Map<string, BulkRowRecord[]>> {
    const out = new Map<string, BulkRowRecord[]>(spans.map((s) => [s.jobId, []]));
    if (!spans.length) return out;
    for (const r of await this.db.read(rowStatements.payloadsOfJobs(spans))) out.get(r.jobId)?.push(r);
    for (const rows of out.values()) rows.sort((a, b) => a.idx - b.idx);
    return out;
  }

  /** Invalid rows marked, as statements for the caller's unit (MARK_CHUNK rows per statement). */
  markInvalid(jobId: string, rows: InvalidRow[]): Stmt[] {
    const out: Stmt[] = [];
    for (let i = 0; i < rows.length; i += MARK_CHUNK)
      out.push(rowStatements.markInvalid(jobId, rows.slice(i, i + MARK_CHUNK)));
    return out;
  }

  markMarketing(jobId: string, idxs: number[]): Stmt[] {
    const out: Stmt[] = [];
    for (let i = 0; i < idxs.length; i += MARK_CHUNK)
      out.push(rowStatements.markMarketing(jobId, idxs.slice(i, i + MARK_CHUNK)));
    return out;
  }

  async firstInvalid(jobId: string): Promise<BulkRowRecord | null> {
    const [r] = await this.db.read(rowStatements.firstOfStatus(jobId, 'invalid', 'idx, error_code, error_message'));
    return r ?? null;
  }

  /** The channel of the first row in `status` (what the next send would pay for); null when none or unknown. */
  async firstChannel(jobId: string, status: 'pending' | 'failed'): Promise<string | null> {
    const [r] = await this.db.read(rowStatements.firstOfStatus(jobId, status, 'channel'));
    return r?.channel ?? null;
  }

  async recentSends(jobId: string, since: number): Promise<number[]> {
    return this.db.read(rowStatements.recentSends(jobId, since));
  }

  /** A page of the rows report without the messages' facts (BulkRowReport adds them). */
  async page(jobId: string, status: string | null, from: number | null, limit: number): Promise<BulkRowRecord[]> {
    return this.db.read(rowStatements.page(jobId, status, from, limit));
  }
}
