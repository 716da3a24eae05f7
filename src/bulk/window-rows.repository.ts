import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '../database/unit-of-work';
import {
  inList,
  query,
  Query,
  read,
  sql,
  SqlParam,
  Stmt,
  Steps,
  updateFromRows,
  UpdateFromSyntax,
} from '../database/sql';
import { BulkRowRecord, toRowRecord } from './bulk-records';
import { JobRow, unionOfJobs } from './job-rows-sql';
import { ClaimedRow, InFlightRow, SettledRow, TakenRow, toClaimedRow, toInFlightRow } from './window-rows';
import type { WindowAsk, WindowClaim, WindowOutcomes } from './window-rows';

const cut = (m: string | null, n: number): string | null => (m === null ? null : m.slice(0, n));
/** A row as a window took it: the attempt is part of the key, so a row retried since is not settled by an older window. */
const ROW_KEY = ['job_id', 'idx', 'attempt'];
/** Rows a window may settle: `pending` ones of its range (nothing else settles those) and `sending` ones. */
const TAKEN = sql("bulk_rows.status IN ('pending', 'sending')");

/** Rows still taken moved to `status` under the ids they were taken with (hold, putBack). */
const retake = (syntax: UpdateFromSyntax, rows: JobRow<TakenRow>[], status: 'sending' | 'pending'): Stmt =>
  updateFromRows(
    syntax,
    'bulk_rows',
    ROW_KEY,
    ['message_id'],
    rows.map((r) => [r.jobId, r.idx, r.attempt, r.messageId]),
    TAKEN,
    sql(`status = '${status}'`),
  );

/** Statements of bulk_rows as dispatch windows (and the reaper) take and settle them, as pure builders (the plans test runs EXPLAIN on them). */
export const windowRowStatements = {
  /** The next rows of a job's window, of one status (so (job_id, status, idx) serves it without sorting). */
  windowRows: (jobId: string, status: 'pending' | 'sending', limit: number): Query<BulkRowRecord> =>
    query(
      toRowRecord,
      sql(
        `SELECT job_id, idx, payload, message_id, attempt FROM bulk_rows WHERE job_id = ? AND status = ? ORDER BY idx LIMIT ${Math.floor(limit)}`,
        jobId,
        status,
      ),
    ),
  /** The same for several jobs' windows in one statement (each job's part is the one-job read). */
  windowRowsOfJobs: (spans: { jobId: string; limit: number }[], status: 'pending' | 'sending'): Query<BulkRowRecord> =>
    query(
      toRowRecord,
      unionOfJobs(spans, (s) => windowRowStatements.windowRows(s.jobId, status, s.limit)),
    ),
  /**
   * Rows of jobs' windows in flight still `pending` (taken before a crash, a lost lease or a
   * shutdown cut the window short), with the window's time their message ids derive from. A window
   * holds at most its job's messagesPerSecond rows. (Unordered: callers sort.)
   */
  inFlight: (jobIds: string[]): Query<InFlightRow> =>
    query(
      toInFlightRow,
      sql(
        `SELECT r.job_id, r.idx, r.payload, r.message_id, r.attempt, j.window_at FROM bulk_jobs j JOIN bulk_rows r ON r.job_id = j.id AND r.idx BETWEEN j.window_from AND j.window_to
       WHERE j.id IN (${inList(jobIds.length)}) AND r.status = 'pending'`,
        ...jobIds,
      ),
    ),
  /** Pending rows of several jobs, each in its range of indexes after a cursor: one read of primary-key ranges (no per-job subquery). */
  pendingInRanges: (spans: { jobId: string; after: number; limit: number }[]): Query<BulkRowRecord> => {
    const params: SqlParam[] = [];
    for (const s of spans) params.push(s.jobId, s.after, s.after + s.limit);
    return query(toRowRecord, {
      sql: `SELECT job_id, idx, payload, message_id, attempt FROM bulk_rows WHERE status = 'pending' AND (${spans.map(() => '(job_id = ? AND idx > ? AND idx <= ?)').join(' OR ')})`,
      params,
    });
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
  hold: (syntax: UpdateFromSyntax, rows: JobRow<TakenRow>[]): Stmt => retake(syntax, rows, 'sending'),
  /**
   * Rows not attempted and unpaid back to plain `pending`, keeping the id they were taken under: a
   * later window sends them under it (looked up in the log first), so a stalled replica that took
   * them before and pays late collides on the key instead of sending a second message.
   */
  putBack: (syntax: UpdateFromSyntax, rows: JobRow<TakenRow>[]): Stmt => retake(syntax, rows, 'pending'),
  /** Of rows as windows took them, those still taken (the caller checks the attempt). */
  stillTaken: (rows: JobRow<unknown>[]): Query<BulkRowRecord> =>
    query(toRowRecord, {
      sql: `SELECT job_id, idx, attempt FROM bulk_rows WHERE ${TAKEN.sql} AND (${rows.map(() => '(job_id = ? AND idx = ?)').join(' OR ')})`,
      params: rows.flatMap((r) => [r.jobId, r.idx]),
    }),
  /** Rows of a job left `sending`, or `pending` in its window in flight (a cancelled job's, for the reaper), with that window's time; any `limit` of them (the next pass takes the rest). */
  orphans: (jobId: string, limit: number): Query<InFlightRow> =>
    query(
      (r) => toInFlightRow(r, jobId),
      sql(
        `SELECT r.idx, r.status, r.message_id, r.attempt, r.to_addr, r.channel, r.payload, j.window_at FROM bulk_rows r JOIN bulk_jobs j ON j.id = r.job_id
       WHERE r.job_id = ? AND (r.status = 'sending' OR (r.status = 'pending' AND r.idx BETWEEN j.window_from AND j.window_to)) LIMIT ${limit}`,
        jobId,
      ),
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
};

/**
 * bulk_rows as dispatch windows take them (claimed under message ids, no row written) and settle
 * them (sent / failed, held `sending`, put back), and as the reaper finds a cancelled job's rows left
 * taken. (Intake, validation, cancel, retry and the rows report are in bulk-row.repository.ts.)
 */
@Injectable()
export class WindowRowsRepository {
  constructor(private readonly db: UnitOfWork) {}

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
    const keep = (got: ClaimedRow[]) => {
      for (const r of got) found.get(r.jobId)?.push(r);
    };
    const under = (taken: boolean) => (r: BulkRowRecord) => toClaimedRow(r, at, taken);
    const none = (of: WindowAsk[]) => of.filter((a) => !found.get(a.jobId)?.length);
    const recovering = asks.filter((a) => a.recover);
    if (recovering.length)
      keep((yield* read(windowRowStatements.windowRowsOfJobs(recovering, 'sending'))).map(under(true)));
    const cut = none(recovering);
    if (cut.length)
      keep(
        (yield* read(windowRowStatements.inFlight(cut.map((a) => a.jobId)))).map(({ windowAt, ...r }) =>
          toClaimedRow(r, windowAt, true),
        ),
      );
    const recovered = new Set(recovering.filter((a) => found.get(a.jobId)?.length).map((a) => a.jobId));
    const ahead = none(asks);
    if (ahead.length) keep((yield* read(windowRowStatements.pendingInRanges(ahead))).map(under(false)));
    const fromStart = none(ahead);
    if (fromStart.length)
      keep((yield* read(windowRowStatements.windowRowsOfJobs(fromStart, 'pending'))).map(under(false)));
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
      if (of.length) moved[status] = (yield windowRowStatements.settleOfJobs(syntax, status, of)).affected;
    }
    const held = all((w) => w.held);
    if (held.length) yield windowRowStatements.hold(syntax, held);
    const unsent = all((w) => w.unsent);
    if (unsent.length) yield windowRowStatements.putBack(syntax, unsent);
    return moved;
  }

  /** The windows any of whose outcomes can no longer be settled by them (another replica moved the row, or retried it). */
  async lostWindows(windows: WindowOutcomes[]): Promise<Set<string>> {
    const rows = windows.flatMap((w) => w.outcomes.map((o) => ({ ...o, jobId: w.jobId })));
    const taken = new Set(
      (rows.length ? await this.db.read(windowRowStatements.stillTaken(rows)) : []).map(
        (r) => `${r.jobId}/${r.idx}/${r.attempt}`,
      ),
    );
    return new Set(rows.filter((r) => !taken.has(`${r.jobId}/${r.idx}/${r.attempt}`)).map((r) => r.jobId));
  }

  /** A cancelled job's rows left taken (see windowRowStatements.orphans), each under the id it was (or would have been) sent under. */
  async orphans(jobId: string, limit: number): Promise<ClaimedRow[]> {
    return (await this.db.read(windowRowStatements.orphans(jobId, limit)))
      .map(({ windowAt, ...r }) => toClaimedRow(r, windowAt, true))
      .sort((a, b) => a.idx - b.idx);
  }
}
