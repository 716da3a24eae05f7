import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '../database/unit-of-work';
import { inList, Row, sql, SqlParam, Stmt, StmtResult, Steps, updateFromRows, UpdateFromSyntax } from '../database/sql';
import type { BulkRowErrorCode } from './bulk-error-codes';
import { BulkRowRecord, num, toRowRecord } from './bulk-records';
import { JobRow, unionOfJobs } from './job-rows-sql';

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

/** A row's outcome as a window (or the reaper) settles it. */
export interface SettledRow {
  idx: number;
  status: 'sent' | 'failed' | 'cancelled';
  code: BulkRowErrorCode | null;
  message: string | null;
  /** Epoch ms (null for a cancelled row). */
  at: number | null;
}

/** A row claimed for a window: marked `sending`, with the message id it is sent under. */
export type ClaimedRow = BulkRowRecord & { status: 'sending'; messageId: string; /** The id was made by this claim (the row had none): nothing is in the log under it. */ minted: boolean };

/** A row read for a claim, as claimed: marked `sending`, under its message id or a new one (`mint`) when it has none. */
export function toClaimedRow(x: Row, jobId: string, mint: () => string): ClaimedRow {
  const minted = x.message_id === null || x.message_id === undefined;
  return { ...toRowRecord(x, jobId), status: 'sending', messageId: minted ? mint() : String(x.message_id), minted };
}

/** Invalid rows marked per statement (5 parameters a row: well under every dialect's limit). */
export const MARK_CHUNK = 500;
/** A report row's own columns (alias `r`: the page joins the row's message). */
const REPORT_COLUMNS = 'r.idx, r.status, r.to_addr, r.channel, r.message_id, r.error_code, r.error_message, r.sent_at';

/** `(?, ?, 'pending', ?, ?, ?, 0)` n times: the VALUES of a multi-row insert (the caller keeps the one of its full batch). */
export function rowValues(n: number): string {
  return Array.from({ length: n }, () => "(?, ?, 'pending', ?, ?, ?, 0)").join(', ');
}

const cut = (m: string | null, n: number): string | null => (m === null ? null : m.slice(0, n));

/** Statements of bulk_rows, as pure builders (the plans test runs EXPLAIN on them). */
export const rowStatements = {
  insertBatch: (jobId: string, rows: NewRow[], values = rowValues(rows.length)): Stmt => {
    const params: SqlParam[] = [];
    for (const r of rows) params.push(jobId, r.idx, r.to, r.channel, r.payload);
    return { sql: `INSERT INTO bulk_rows (job_id, idx, status, to_addr, channel, payload, attempt) VALUES ${values}`, params };
  },
  deleteOfJob: (jobId: string): Stmt => sql('DELETE FROM bulk_rows WHERE job_id = ?', jobId),
  /** Rows of a job from index `from` in index order, with their payloads (validation, fingerprints). */
  payloads: (jobId: string, from: number, limit: number): Stmt => sql(`SELECT idx, channel, payload FROM bulk_rows WHERE job_id = ? AND idx >= ? ORDER BY idx LIMIT ${limit}`, jobId, from),
  /** The same for several jobs in one statement: each job's range read in index order, one after the other. */
  payloadsOfJobs: (spans: RowSpan[]): Stmt =>
    unionOfJobs(spans, (s) => sql(`SELECT job_id, idx, channel, payload FROM bulk_rows WHERE job_id = ? AND idx >= ? ORDER BY idx LIMIT ${Math.floor(s.limit)}`, s.jobId, s.from)),
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
  firstOfStatus: (jobId: string, status: string, columns: string): Stmt => sql(`SELECT ${columns} FROM bulk_rows WHERE job_id = ? AND status = ? ORDER BY idx LIMIT 1`, jobId, status),
  cancelPending: (jobId: string): Stmt => sql(`UPDATE bulk_rows SET status = 'cancelled' WHERE job_id = ? AND status = 'pending'`, jobId),
  retryFailed: (jobId: string): Stmt =>
    sql(`UPDATE bulk_rows SET status = 'pending', attempt = attempt + 1, message_id = NULL, error_code = NULL, error_message = NULL, sent_at = NULL WHERE job_id = ? AND status = 'failed'`, jobId),
  /** The next rows of a window, of one status (so (job_id, status, idx) serves it without sorting). */
  windowRows: (jobId: string, status: 'pending' | 'sending', limit: number): Stmt =>
    sql(`SELECT idx, payload, message_id FROM bulk_rows WHERE job_id = ? AND status = ? ORDER BY idx LIMIT ${limit}`, jobId, status),
  claim: (jobId: string, rows: { idx: number; messageId: string }[]): Stmt => {
    const params: SqlParam[] = [];
    for (const x of rows) params.push(x.idx, x.messageId);
    return {
      sql: `UPDATE bulk_rows SET status = 'sending', message_id = CASE idx ${rows.map(() => 'WHEN ? THEN ?').join(' ')} END WHERE job_id = ? AND status IN ('pending', 'sending') AND idx IN (${inList(rows.length)})`,
      params: [...params, jobId, ...rows.map((x) => x.idx)],
    };
  },
  /** The next rows of several jobs' windows, of one status, in one statement (each job's part is the one-job read). */
  windowRowsOfJobs: (spans: { jobId: string; limit: number }[], status: 'pending' | 'sending'): Stmt =>
    unionOfJobs(spans, (s) => sql(`SELECT job_id, idx, payload, message_id FROM bulk_rows WHERE job_id = ? AND status = ? ORDER BY idx LIMIT ${Math.floor(s.limit)}`, s.jobId, status)),
  /** Pending rows of several jobs, each in its range of indexes after a cursor: one read of primary-key ranges (no per-job subquery). */
  pendingInRanges: (spans: { jobId: string; after: number; limit: number }[]): Stmt => {
    const params: SqlParam[] = [];
    for (const s of spans) params.push(s.jobId, s.after, s.after + s.limit);
    return { sql: `SELECT job_id, idx, payload, message_id FROM bulk_rows WHERE status = 'pending' AND (${spans.map(() => '(job_id = ? AND idx > ? AND idx <= ?)').join(' OR ')})`, params };
  },
  /**
   * Several jobs' windows claimed in one UPDATE: the rows joined by primary key to a list of (job,
   * index, message id), so neither a per-row CASE nor an OR of ranges is read through per row.
   */
  claimOfJobs: (syntax: UpdateFromSyntax, rows: JobRow<{ messageId: string }>[]): Stmt =>
    updateFromRows(syntax, 'bulk_rows', ['job_id', 'idx'], ['message_id'], rows.map((r) => [r.jobId, r.idx, r.messageId]), sql("bulk_rows.status IN ('pending', 'sending')"), sql("status = 'sending'")),
  /** Several jobs' settled rows of one status in one UPDATE, joined by primary key (only rows still `sending`: counted once). */
  settleOfJobs: (syntax: UpdateFromSyntax, status: 'sent' | 'failed', rows: JobRow<SettledRow>[]): Stmt =>
    status === 'sent'
      ? updateFromRows(syntax, 'bulk_rows', ['job_id', 'idx'], ['sent_at'], rows.map((r) => [r.jobId, r.idx, r.at]), sql("bulk_rows.status = 'sending'"), sql("status = 'sent', error_code = NULL, error_message = NULL"))
      : updateFromRows(syntax, 'bulk_rows', ['job_id', 'idx'], ['error_code', 'error_message', 'sent_at'], rows.map((r) => [r.jobId, r.idx, r.code, cut(r.message, 500), r.at]), sql("bulk_rows.status = 'sending'"), sql("status = 'failed'")),
  sendingOf: (jobId: string, idxs: number[]): Stmt => sql(`SELECT idx FROM bulk_rows WHERE job_id = ? AND status = 'sending' AND idx IN (${inList(idxs.length)})`, jobId, ...idxs),
  /** Claimed rows moved to `sent` or `failed` with their outcome (only rows still `sending`: counted once). */
  settle: (jobId: string, status: 'sent' | 'failed', rows: SettledRow[]): Stmt => {
    const p: SqlParam[] = [];
    const col = (f: (o: SettledRow) => SqlParam) => {
      for (const o of rows) p.push(o.idx, f(o));
      return `CASE idx ${rows.map(() => 'WHEN ? THEN ?').join(' ')} END`;
    };
    const set =
      status === 'sent'
        ? `error_code = NULL, error_message = NULL, sent_at = ${col((o) => o.at)}`
        : `error_code = ${col((o) => o.code)}, error_message = ${col((o) => cut(o.message, 500))}, sent_at = ${col((o) => o.at)}`;
    return { sql: `UPDATE bulk_rows SET status = '${status}', ${set} WHERE job_id = ? AND status = 'sending' AND idx IN (${inList(rows.length)})`, params: [...p, jobId, ...rows.map((o) => o.idx)] };
  },
  putBack: (jobId: string, idxs: number[]): Stmt => sql(`UPDATE bulk_rows SET status = 'pending' WHERE job_id = ? AND status = 'sending' AND idx IN (${inList(idxs.length)})`, jobId, ...idxs),
  recentSends: (jobId: string, since: number): Stmt => sql('SELECT sent_at FROM bulk_rows WHERE job_id = ? AND sent_at >= ? ORDER BY sent_at', jobId, since),
  orphans: (jobId: string, limit: number): Stmt =>
    sql(`SELECT idx, message_id, to_addr, channel, payload FROM bulk_rows WHERE job_id = ? AND status = 'sending' ORDER BY idx LIMIT ${limit}`, jobId),
  settleOrphan: (jobId: string, s: SettledRow): Stmt =>
    sql(`UPDATE bulk_rows SET status = ?, error_code = ?, error_message = ?, sent_at = ? WHERE job_id = ? AND idx = ? AND status = 'sending'`, s.status, s.code, cut(s.message, 500), s.at, jobId, s.idx),
  /**
   * Rows of a job after index `from`, in index order, optionally of one stored status, with their
   * message's SMS encoding and parts and what receipts said of it (status, delivered_at): LEFT JOIN by
   * the message's primary key, nothing stored twice.
   */
  page: (jobId: string, status: string | null, from: number | null, limit: number): Stmt => {
    const params: SqlParam[] = [jobId];
    let where = 'r.job_id = ?';
    if (status !== null) {
      where += ' AND r.status = ?';
      params.push(status);
    }
    if (from !== null) {
      where += ' AND r.idx > ?';
      params.push(from);
    }
    return sql(
      `SELECT ${REPORT_COLUMNS}, m.encoding, m.segments, m.status AS message_status, m.delivered_at
       FROM bulk_rows r LEFT JOIN messages m ON m.id = r.message_id WHERE ${where} ORDER BY r.idx LIMIT ${limit}`,
      ...params,
    );
  },
};

/** bulk_rows: typed records and named state changes (every statement of the table is here). */
@Injectable()
export class BulkRowRepository {
  constructor(private readonly db: UnitOfWork) {}

  /** Rows from index `from` with their payloads (validation chunks, fingerprints of a stored job). */
  async payloads(jobId: string, from: number, limit: number): Promise<BulkRowRecord[]> {
    return (await this.db.rows(rowStatements.payloads(jobId, from, limit))).map((r) => toRowRecord(r, jobId));
  }

  /** The rows of several jobs' spans in one statement, per job in index order. */
  async payloadsOfJobs(spans: RowSpan[]): Promise<Map<string, BulkRowRecord[]>> {
    const out = new Map<string, BulkRowRecord[]>(spans.map((s) => [s.jobId, []]));
    if (!spans.length) return out;
    for (const r of await this.db.rows(rowStatements.payloadsOfJobs(spans))) out.get(String(r.job_id))?.push(toRowRecord(r, String(r.job_id)));
    for (const rows of out.values()) rows.sort((a, b) => a.idx - b.idx);
    return out;
  }

  /** Invalid rows marked, as statements for the caller's unit (MARK_CHUNK rows per statement). */
  markInvalid(jobId: string, rows: InvalidRow[]): Stmt[] {
    const out: Stmt[] = [];
    for (let i = 0; i < rows.length; i += MARK_CHUNK) out.push(rowStatements.markInvalid(jobId, rows.slice(i, i + MARK_CHUNK)));
    return out;
  }

  async firstInvalid(jobId: string): Promise<BulkRowRecord | null> {
    const [r] = await this.db.rows(rowStatements.firstOfStatus(jobId, 'invalid', 'idx, error_code, error_message'));
    return r ? toRowRecord({ ...r, status: 'invalid' }, jobId) : null;
  }

  /** The channel of the first row in `status` (what the next send would pay for); null when none or unknown. */
  async firstChannel(jobId: string, status: 'pending' | 'failed'): Promise<string | null> {
    const [r] = await this.db.rows(rowStatements.firstOfStatus(jobId, status, 'channel'));
    return r && r.channel !== null && r.channel !== undefined ? String(r.channel) : null;
  }

  /**
   * Claims up to `limit` rows for a window: rows left `sending` first (when `recover`), else pending
   * ones; each is marked `sending` with its message id (`newId` for a row without one). Rows a cancel
   * took between the read and the claim are left out (`found` counts the rows read).
   */
  *claimWindow(jobId: string, limit: number, recover: boolean, newId: () => string): Steps<{ rows: ClaimedRow[]; found: number }> {
    let found: StmtResult = { affected: 0, rows: [] };
    if (recover) found = yield rowStatements.windowRows(jobId, 'sending', limit);
    if (!found.rows.length) found = yield rowStatements.windowRows(jobId, 'pending', limit);
    const rows = found.rows.map((x) => toClaimedRow(x, jobId, newId));
    if (!rows.length) return { rows, found: 0 };
    const claim: StmtResult = yield rowStatements.claim(jobId, rows);
    if (claim.affected === rows.length) return { rows, found: rows.length };
    // A cancel took some rows between our read and claim (other connection): keep what is ours.
    const mine: StmtResult = yield rowStatements.sendingOf(jobId, rows.map((x) => x.idx));
    const keep = new Set(mine.rows.map((x) => num(x.idx)));
    return { rows: rows.filter((x) => keep.has(x.idx)), found: rows.length };
  }

  /** A window's outcomes: rows settled (sent / failed) and unsent rows back to `pending`; returns the rows moved per status. */
  *settleWindow(jobId: string, settled: SettledRow[], unsent: number[]): Steps<{ sent: number; failed: number }> {
    const sentRows = settled.filter((o) => o.status === 'sent');
    const failedRows = settled.filter((o) => o.status === 'failed');
    const sent = sentRows.length ? (yield rowStatements.settle(jobId, 'sent', sentRows)).affected : 0;
    const failed = failedRows.length ? (yield rowStatements.settle(jobId, 'failed', failedRows)).affected : 0;
    if (unsent.length) yield rowStatements.putBack(jobId, unsent);
    return { sent, failed };
  }

  async recentSends(jobId: string, since: number): Promise<number[]> {
    return (await this.db.rows(rowStatements.recentSends(jobId, since))).map((r) => num(r.sent_at));
  }

  async orphans(jobId: string, limit: number): Promise<BulkRowRecord[]> {
    return (await this.db.rows(rowStatements.orphans(jobId, limit))).map((r) => toRowRecord({ ...r, status: 'sending' }, jobId));
  }

  async page(jobId: string, status: string | null, from: number | null, limit: number): Promise<BulkRowRecord[]> {
    return (await this.db.rows(rowStatements.page(jobId, status, from, limit))).map((r) => toRowRecord(r, jobId));
  }
}
