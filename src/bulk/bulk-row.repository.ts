import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '../database/unit-of-work';
import { inList, Row, sql, SqlParam, Stmt, StmtResult, Steps, updateFromRows, UpdateFromSyntax } from '../database/sql';
import { BulkRowRecord, num, toRowRecord } from './bulk-records';
import { JobRow, unionOfJobs } from './job-rows-sql';
import { ClaimedRow, SettledRow, TakenRow, toClaimedRow, WindowAsk, WindowClaim, WindowOutcomes } from './window-rows';

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
/** A report row's own columns (alias `r`: the page joins the row's message). */
const REPORT_COLUMNS =
  'r.idx, r.status, r.to_addr, r.channel, r.purpose, r.message_id, r.error_code, r.error_message, r.sent_at';

/** `(?, ?, 'pending', ?, ?, ?, 0)` n times: the VALUES of a multi-row insert (the caller keeps the one of its full batch). */
export function rowValues(n: number): string {
  return Array.from({ length: n }, () => "(?, ?, 'pending', ?, ?, ?, 0)").join(', ');
}

const cut = (m: string | null, n: number): string | null => (m === null ? null : m.slice(0, n));
/** A row as a window took it: the attempt is part of the key, so a row retried since is not settled by an older window. */
const ROW_KEY = ['job_id', 'idx', 'attempt'];
/** Rows a window may settle: `pending` ones of its range (nothing else settles those) and `sending` ones. */
const TAKEN = sql("bulk_rows.status IN ('pending', 'sending')");
/** Not in the job's window in flight (two parameters: the job's id, twice). */
const OUTSIDE_WINDOW =
  'NOT (idx BETWEEN COALESCE((SELECT window_from FROM bulk_jobs WHERE id = ?), 0) AND COALESCE((SELECT window_to FROM bulk_jobs WHERE id = ?), -1))';

/** Statements of bulk_rows, as pure builders (the plans test runs EXPLAIN on them). */
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
  payloads: (jobId: string, from: number, limit: number): Stmt =>
    sql(
      `SELECT idx, channel, payload FROM bulk_rows WHERE job_id = ? AND idx >= ? ORDER BY idx LIMIT ${limit}`,
      jobId,
      from,
    ),
  /** The same for several jobs in one statement: each job's range read in index order, one after the other. */
  payloadsOfJobs: (spans: RowSpan[]): Stmt =>
    unionOfJobs(spans, (s) =>
      sql(
        `SELECT job_id, idx, channel, payload FROM bulk_rows WHERE job_id = ? AND idx >= ? ORDER BY idx LIMIT ${Math.floor(s.limit)}`,
        s.jobId,
        s.from,
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
  firstOfStatus: (jobId: string, status: string, columns: string): Stmt =>
    sql(`SELECT ${columns} FROM bulk_rows WHERE job_id = ? AND status = ? ORDER BY idx LIMIT 1`, jobId, status),
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
  /** The next rows of a job's window, of one status (so (job_id, status, idx) serves it without sorting). */
  windowRows: (jobId: string, status: 'pending' | 'sending', limit: number): Stmt =>
    sql(
      `SELECT job_id, idx, payload, message_id, attempt FROM bulk_rows WHERE job_id = ? AND status = ? ORDER BY idx LIMIT ${Math.floor(limit)}`,
      jobId,
      status,
    ),
  /** The same for several jobs' windows in one statement (each job's part is the one-job read). */
  windowRowsOfJobs: (spans: { jobId: string; limit: number }[], status: 'pending' | 'sending'): Stmt =>
    unionOfJobs(spans, (s) => rowStatements.windowRows(s.jobId, status, s.limit)),
  /**
   * Rows of jobs' windows in flight still `pending` (taken before a crash, a lost lease or a
   * shutdown cut the window short), with the window's time their message ids derive from. A window
   * holds at most its job's messagesPerSecond rows. (Unordered: callers sort.)
   */
  inFlight: (jobIds: string[]): Stmt =>
    sql(
      `SELECT r.job_id, r.idx, r.payload, r.message_id, r.attempt, j.window_at FROM bulk_jobs j JOIN bulk_rows r ON r.job_id = j.id AND r.idx BETWEEN j.window_from AND j.window_to
       WHERE j.id IN (${inList(jobIds.length)}) AND r.status = 'pending'`,
      ...jobIds,
    ),
  /** Pending rows of several jobs, each in its range of indexes after a cursor: one read of primary-key ranges (no per-job subquery). */
  pendingInRanges: (spans: { jobId: string; after: number; limit: number }[]): Stmt => {
    const params: SqlParam[] = [];
    for (const s of spans) params.push(s.jobId, s.after, s.after + s.limit);
    return {
      sql: `SELECT job_id, idx, payload, message_id, attempt FROM bulk_rows WHERE status = 'pending' AND (${spans.map(() => '(job_id = ? AND idx > ? AND idx <= ?)').join(' OR ')})`,
      params,
    };
  },
  /**
   * Several jobs' settled rows of one status in one UPDATE, joined by primary key (and the attempt
   * they were taken at) to a list of outcomes: only rows still taken (`pending` in a window, or
   * `sending`) move, so each is counted once, by whoever moves it.
   */
  settleOfJobs: (syntax: UpdateFromSyntax, status: 'sent' | 'failed', rows: JobRow<SettledRow>[]): Stmt =>
    status === 'sent'
      ? updateFromRows(
          syntax,
          'bulk_rows',
          ROW_KEY,
          ['message_id', 'sent_at'],
          rows.map((r) => [r.jobId, r.idx, r.attempt, r.messageId, r.at]),
          TAKEN,
          sql("status = 'sent', error_code = NULL, error_message = NULL"),
        )
      : updateFromRows(
          syntax,
          'bulk_rows',
          ROW_KEY,
          ['message_id', 'error_code', 'error_message', 'sent_at'],
          rows.map((r) => [r.jobId, r.idx, r.attempt, r.messageId, r.code, cut(r.message, 500), r.at]),
          TAKEN,
          sql("status = 'failed'"),
        ),
  /** Rows whose message is paid and still open marked `sending` under their ids (the next window, or the reaper, settles them from the log). */
  hold: (syntax: UpdateFromSyntax, rows: JobRow<TakenRow>[]): Stmt =>
    updateFromRows(
      syntax,
      'bulk_rows',
      ROW_KEY,
      ['message_id'],
      rows.map((r) => [r.jobId, r.idx, r.attempt, r.messageId]),
      TAKEN,
      sql("status = 'sending'"),
    ),
  /**
   * Rows not attempted and unpaid back to plain `pending`, keeping the id they were taken under: a
   * later window sends them under it (looked up in the log first), so a stalled replica that took
   * them before and pays late collides on the key instead of sending a second message.
   */
  putBack: (syntax: UpdateFromSyntax, rows: JobRow<TakenRow>[]): Stmt =>
    updateFromRows(
      syntax,
      'bulk_rows',
      ROW_KEY,
      ['message_id'],
      rows.map((r) => [r.jobId, r.idx, r.attempt, r.messageId]),
      TAKEN,
      sql("status = 'pending'"),
    ),
  /** Of rows as windows took them, those still taken (the caller checks the attempt). */
  stillTaken: (rows: JobRow<unknown>[]): Stmt => ({
    sql: `SELECT job_id, idx, attempt FROM bulk_rows WHERE ${TAKEN.sql} AND (${rows.map(() => '(job_id = ? AND idx = ?)').join(' OR ')})`,
    params: rows.flatMap((r) => [r.jobId, r.idx]),
  }),
  recentSends: (jobId: string, since: number): Stmt =>
    sql('SELECT sent_at FROM bulk_rows WHERE job_id = ? AND sent_at >= ? ORDER BY sent_at', jobId, since),
  /** Rows of a job left `sending`, or `pending` in its window in flight (a cancelled job's, for the reaper), with that window's time; any `limit` of them (the next pass takes the rest). */
  orphans: (jobId: string, limit: number): Stmt =>
    sql(
      `SELECT r.idx, r.status, r.message_id, r.attempt, r.to_addr, r.channel, r.payload, j.window_at FROM bulk_rows r JOIN bulk_jobs j ON j.id = r.job_id
       WHERE r.job_id = ? AND (r.status = 'sending' OR (r.status = 'pending' AND r.idx BETWEEN j.window_from AND j.window_to)) LIMIT ${limit}`,
      jobId,
    ),
  settleOrphan: (jobId: string, s: SettledRow): Stmt =>
    sql(
      `UPDATE bulk_rows SET status = ?, message_id = ?, error_code = ?, error_message = ?, sent_at = ? WHERE job_id = ? AND idx = ? AND attempt = ? AND status IN ('pending', 'sending')`,
      s.status,
      s.messageId,
      s.code,
      cut(s.message, 500),
      s.at,
      jobId,
      s.idx,
      s.attempt,
    ),
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
    for (const r of await this.db.rows(rowStatements.payloadsOfJobs(spans)))
      out.get(String(r.job_id))?.push(toRowRecord(r, String(r.job_id)));
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
    const [r] = await this.db.rows(rowStatements.firstOfStatus(jobId, 'invalid', 'idx, error_code, error_message'));
    return r ? toRowRecord({ ...r, status: 'invalid' }, jobId) : null;
  }

  /** The channel of the first row in `status` (what the next send would pay for); null when none or unknown. */
  async firstChannel(jobId: string, status: 'pending' | 'failed'): Promise<string | null> {
    const [r] = await this.db.rows(rowStatements.firstOfStatus(jobId, status, 'channel'));
    return r && r.channel !== null && r.channel !== undefined ? String(r.channel) : null;
  }

  /**
   * Up to `limit` rows per job for windows opened at `at`, every job's in the same few reads.
   * Recovering (`recover`): rows left `sending` first, else the pending rows of the window in flight
   * when the job was taken (under the ids derived from that window's time); `recovering` says such
   * rows were found, so the next window looks again. Otherwise (or when none are left) the next
   * pending rows after the runner's cursor (primary-key ranges), or, for a job with none there (its
   * end, or a run of invalid or earlier rows), its first pending rows: all under ids derived from
   * `at`, and `opened` is their range, for the caller to record on the job in the same unit.
   */
  *claimWindows(asks: WindowAsk[], at: number): Steps<Map<string, WindowClaim>> {
    const found = new Map<string, ClaimedRow[]>(asks.map((a) => [a.jobId, []]));
    const keep = (got: StmtResult, when: (x: Row) => number, taken: boolean) => {
      for (const x of got.rows) found.get(String(x.job_id))?.push(toClaimedRow(x, String(x.job_id), when(x), taken));
    };
    const none = (of: WindowAsk[]) => of.filter((a) => !found.get(a.jobId)?.length);
    const recovering = asks.filter((a) => a.recover);
    if (recovering.length) keep(yield rowStatements.windowRowsOfJobs(recovering, 'sending'), () => at, true);
    const cut = none(recovering);
    if (cut.length) keep(yield rowStatements.inFlight(cut.map((a) => a.jobId)), (x) => num(x.window_at), true);
    const recovered = new Set(recovering.filter((a) => found.get(a.jobId)?.length).map((a) => a.jobId));
    const ahead = none(asks);
    if (ahead.length) keep(yield rowStatements.pendingInRanges(ahead), () => at, false);
    const fromStart = none(ahead);
    if (fromStart.length) keep(yield rowStatements.windowRowsOfJobs(fromStart, 'pending'), () => at, false);
    const claims = new Map<string, WindowClaim>();
    for (const [jobId, rows] of found) {
      rows.sort((a, b) => a.idx - b.idx);
      const opened = !recovered.has(jobId) && rows.length ? { from: rows[0].idx, to: rows[rows.length - 1].idx } : null;
      claims.set(jobId, { rows, recovering: recovered.has(jobId), opened });
    }
    return claims;
  }

  /**
   * Windows' outcomes: rows settled (sent / failed), rows whose paid message is still open marked
   * `sending`, unsent rows put back to `pending` under their ids; one UPDATE per kind for all the
   * windows. Returns the settled rows moved per status: only rows still taken move, so a row is
   * counted once, by whoever moves it.
   */
  *settleWindows(windows: WindowOutcomes[]): Steps<{ sent: number; failed: number }> {
    const syntax = this.db.capabilities.updateFrom;
    const all = <T>(f: (w: WindowOutcomes) => T[]) =>
      windows.flatMap((w) => f(w).map((r) => ({ ...r, jobId: w.jobId })));
    const moved = { sent: 0, failed: 0 };
    const settled = all((w) => w.outcomes);
    for (const status of ['sent', 'failed'] as const) {
      const of = settled.filter((o) => o.status === status);
      if (of.length) moved[status] = (yield rowStatements.settleOfJobs(syntax, status, of)).affected;
    }
    const held = all((w) => w.held);
    if (held.length) yield rowStatements.hold(syntax, held);
    const unsent = all((w) => w.unsent);
    if (unsent.length) yield rowStatements.putBack(syntax, unsent);
    return moved;
  }

  /** The windows any of whose outcomes can no longer be settled by them (another replica moved the row, or retried it). */
  async lostWindows(windows: WindowOutcomes[]): Promise<Set<string>> {
    const rows = windows.flatMap((w) => w.outcomes.map((o) => ({ ...o, jobId: w.jobId })));
    const taken = new Set(
      (rows.length ? await this.db.rows(rowStatements.stillTaken(rows)) : []).map(
        (r) => `${String(r.job_id)}/${num(r.idx)}/${num(r.attempt)}`,
      ),
    );
    return new Set(rows.filter((r) => !taken.has(`${r.jobId}/${r.idx}/${r.attempt}`)).map((r) => r.jobId));
  }

  async recentSends(jobId: string, since: number): Promise<number[]> {
    return (await this.db.rows(rowStatements.recentSends(jobId, since))).map((r) => num(r.sent_at));
  }

  /** A cancelled job's rows left taken (see rowStatements.orphans), each under the id it was (or would have been) sent under. */
  async orphans(jobId: string, limit: number): Promise<ClaimedRow[]> {
    return (await this.db.rows(rowStatements.orphans(jobId, limit)))
      .map((r) => toClaimedRow(r, jobId, num(r.window_at), true))
      .sort((a, b) => a.idx - b.idx);
  }

  async page(jobId: string, status: string | null, from: number | null, limit: number): Promise<BulkRowRecord[]> {
    return (await this.db.rows(rowStatements.page(jobId, status, from, limit))).map((r) => toRowRecord(r, jobId));
  }
}
