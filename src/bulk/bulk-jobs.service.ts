import { Injectable } from '@nestjs/common';
import { LedgerService } from '../accounts/ledger.service';
import { ApiError } from '../common/errors';
import { Clock } from '../common/clock';
import { CursorCodec } from '../common/cursor';
import { UnitOfWork } from '../database/unit-of-work';
import { sql, SqlParam, Stmt, StmtResult, Steps } from '../database/sql';
import { DeliveryCounts } from '../messaging/delivery-counts';
import { BulkJobView, BulkRowView, JobRow, ROW_FILTERS, ROW_STATUS_FILTERS, toJobView, toRowView } from './bulk-job.view';
import type { ListBulkJobsQuery, ListBulkRowsQuery } from './dto/bulk-queries.dto';
import { canPayNextRow } from './next-row-payment';
import { BulkJobEvents } from './bulk-job-events';

export interface JobPage {
  jobs: BulkJobView[];
  nextCursor: string | null;
  hasMore: boolean;
}
export interface RowPage {
  jobId: string;
  rows: BulkRowView[];
  nextCursor: string | null;
  hasMore: boolean;
}

/** Reads and state moves of bulk jobs. Every query is scoped by the caller's account id. */
@Injectable()
export class BulkJobsService {
  constructor(
    private readonly db: UnitOfWork,
    private readonly clock: Clock,
    private readonly cursors: CursorCodec,
    private readonly ledger: LedgerService,
    private readonly events: BulkJobEvents,
    private readonly delivery: DeliveryCounts,
  ) {}

  async get(accountId: string, jobId: string): Promise<BulkJobView> {
    return this.view(accountId, await this.load(accountId, jobId));
  }

  /** A row read for `accountId`, with its delivery counts. */
  async view(accountId: string, row: JobRow): Promise<BulkJobView> {
    return toJobView(row, await this.delivery.ofBulkJob(accountId, String(row.id)));
  }

  async list(accountId: string, q: ListBulkJobsQuery): Promise<JobPage> {
    const limit = q.limit ?? 20;
    const after = this.cursors.decode<string>(`bulk-jobs:${accountId}`, q.cursor);
    const params: SqlParam[] = [accountId];
    let where = 'account_id = ?';
    if (after !== null) {
      where += ' AND id < ?';
      params.push(String(after));
    }
    const rows = await this.db.rows(sql(`SELECT * FROM bulk_jobs WHERE ${where} ORDER BY id DESC LIMIT ${limit + 1}`, ...params));
    const hasMore = rows.length > limit;
    const page = rows.slice(0, limit);
    // One grouped query for the page's delivery counts.
    const delivery = await this.delivery.ofBulkJobs(accountId, page.map((r) => String(r.id)));
    return {
      jobs: page.map((r) => toJobView(r, delivery.get(String(r.id)))),
      nextCursor: hasMore ? this.cursors.encode(`bulk-jobs:${accountId}`, String(page[page.length - 1].id)) : null,
      hasMore,
    };
  }

  async rows(accountId: string, jobId: string, q: ListBulkRowsQuery): Promise<RowPage> {
    await this.load(accountId, jobId);
    const status = q.status ?? '';
    // (The query DTO checked it; an own-key lookup all the same, never `constructor` & co.)
    if (status !== '' && !Object.hasOwn(ROW_FILTERS, status)) throw ApiError.validation(`status must be one of ${ROW_STATUS_FILTERS.join(', ')}`);
    const limit = q.limit ?? 100;
    const scope = `bulk-rows:${jobId}:${status}`;
    const after = this.cursors.decode<number>(scope, q.cursor);
    const from = after === null ? null : Number(after);
    // One query per stored status, each walking (job_id, status, idx) in order: `pending` (pending +
    // sending) merges two short ordered reads here instead of having the database sort or filter.
    const found: Record<string, unknown>[] = [];
    for (const stored of status ? ROW_FILTERS[status] : [null]) found.push(...(await this.db.rows(rowPage(jobId, stored, from, limit + 1))));
    const rows = found.sort((a, b) => Number(a.idx) - Number(b.idx)).slice(0, limit + 1);
    const hasMore = rows.length > limit;
    const page = rows.slice(0, limit);
    return { jobId, rows: page.map(toRowView), nextCursor: hasMore ? this.cursors.encode(scope, Number(page[page.length - 1].idx)) : null, hasMore };
  }

  async pause(accountId: string, jobId: string): Promise<BulkJobView> {
    await this.load(accountId, jobId);
    const now = this.clock.now();
    const r = await this.events.around(jobId, 'bulk_job.paused', () => this.db.run(
      sql(
        `UPDATE bulk_jobs SET status = 'paused', pause_reason = 'user', resume_at = NULL, updated_at = ?
         WHERE id = ? AND (status IN ('queued', 'running') OR (status = 'paused' AND pause_reason <> 'user'))`,
        now, jobId,
      ),
    ), (res) => res.affected === 1);
    return this.after(accountId, jobId, r.affected, 'paused');
  }

  async resume(accountId: string, jobId: string): Promise<BulkJobView> {
    const job = await this.load(accountId, jobId);
    if (job.status !== 'paused') throw invalidState(String(job.status), 'resumed');
    if (job.pause_reason === 'insufficient_balance' && !(await canPayNextRow(this.db, this.ledger, accountId, jobId, 'pending'))) {
      throw new ApiError('INSUFFICIENT_BALANCE', 'The account still cannot pay for one message');
    }
    const r = await this.db.run(
      sql(`UPDATE bulk_jobs SET status = 'queued', pause_reason = NULL, resume_at = NULL, updated_at = ? WHERE id = ? AND status = 'paused'`, this.clock.now(), jobId),
    );
    return this.after(accountId, jobId, r.affected, 'resumed');
  }

  async cancel(accountId: string, jobId: string): Promise<BulkJobView> {
    await this.load(accountId, jobId);
    const now = this.clock.now();
    const moved = await this.events.around(jobId, 'bulk_job.cancelled', () => this.db.steps(function* (): Steps<number> {
      const r: StmtResult = yield sql(
        `UPDATE bulk_jobs SET status = 'cancelled', pause_reason = NULL, resume_at = NULL, updated_at = ? WHERE id = ? AND status IN ('validating', 'queued', 'running', 'paused')`,
        now, jobId,
      );
      if (r.affected === 0) return 0;
      const rows: StmtResult = yield sql(`UPDATE bulk_rows SET status = 'cancelled' WHERE job_id = ? AND status = 'pending'`, jobId);
      yield sql('UPDATE bulk_jobs SET pending_count = pending_count - ?, cancelled_count = cancelled_count + ? WHERE id = ?', rows.affected, rows.affected, jobId);
      return 1;
    }), (n) => n === 1);
    return this.after(accountId, jobId, moved, 'cancelled');
  }

  /** Every failed row back to `pending`, job `queued`; 402 (rows untouched) when one message cannot be paid. */
  async retryFailed(accountId: string, jobId: string): Promise<{ retried: number; job: BulkJobView }> {
    const job = await this.load(accountId, jobId);
    if (Number(job.failed_count) === 0) throw new ApiError('NOTHING_TO_RETRY', 'The job has no failed rows');
    if (!(await canPayNextRow(this.db, this.ledger, accountId, jobId, 'failed'))) {
      throw new ApiError('INSUFFICIENT_BALANCE', 'Free messages, plan quota and wallet balance cannot pay for one message');
    }
    const now = this.clock.now();
    // The job is read back inside the same transaction: the response shows the state this retry made
    // (`queued`), not whatever a dispatcher did a moment later.
    const result = await this.db.steps(function* (): Steps<{ retried: number; job: JobRow | null }> {
      const rows: StmtResult = yield sql(
        `UPDATE bulk_rows SET status = 'pending', attempt = attempt + 1, message_id = NULL, error_code = NULL, error_message = NULL, sent_at = NULL WHERE job_id = ? AND status = 'failed'`,
        jobId,
      );
      if (rows.affected === 0) return { retried: 0, job: null };
      yield sql(
        `UPDATE bulk_jobs SET status = 'queued', pause_reason = NULL, resume_at = NULL, pending_count = pending_count + ?, failed_count = failed_count - ?, updated_at = ? WHERE id = ?`,
        rows.affected, rows.affected, now, jobId,
      );
      const after: StmtResult = yield sql('SELECT * FROM bulk_jobs WHERE id = ?', jobId);
      return { retried: rows.affected, job: (after.rows[0] as JobRow | undefined) ?? null };
    });
    if (result.retried === 0 || !result.job) throw new ApiError('NOTHING_TO_RETRY', 'The job has no failed rows');
    return { retried: result.retried, job: await this.view(accountId, result.job) };
  }

  private async after(accountId: string, jobId: string, affected: number, verb: string): Promise<BulkJobView> {
    const job = await this.load(accountId, jobId);
    if (affected === 0) throw invalidState(String(job.status), verb);
    return this.view(accountId, job);
  }

  private async load(accountId: string, jobId: string): Promise<JobRow> {
    const row = await this.findRow(accountId, jobId);
    if (!row) throw new ApiError('JOB_NOT_FOUND', 'Bulk job not found');
    return row;
  }

  /** The account's job row, or null (the event stream's poll, which adds delivery counts at its own pace). */
  async findRow(accountId: string, jobId: string): Promise<JobRow | null> {
    const rows = await this.db.rows(sql('SELECT * FROM bulk_jobs WHERE id = ? AND account_id = ?', String(jobId).slice(0, 40), accountId));
    return rows[0] ?? null;
  }
}

/** Rows of a job after index `from`, in index order, optionally of one stored status. */
export function rowPage(jobId: string, status: string | null, from: number | null, limit: number): Stmt {
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
  // The row's message (by primary key) tells an SMS row's encoding and parts and what receipts said
  // of it: nothing stored twice.
  return sql(
    `SELECT r.idx, r.status, r.to_addr, r.channel, r.message_id, r.error_code, r.error_message, r.sent_at, m.encoding, m.segments,
            m.status AS message_status, m.delivered_at
     FROM bulk_rows r LEFT JOIN messages m ON m.id = r.message_id WHERE ${where} ORDER BY r.idx LIMIT ${limit}`,
    ...params,
  );
}

function invalidState(status: string, verb: string): ApiError {
  return new ApiError('INVALID_JOB_STATE', `A ${status} job cannot be ${verb}`);
}
