import { Injectable } from '@nestjs/common';
import { LedgerService } from '../accounts/ledger.service';
import { ApiError } from '../common/errors';
import { Clock } from '../common/clock';
import { CursorCodec } from '../common/cursor';
import { UnitOfWork } from '../database/unit-of-work';
import { DeliveryCounts } from '../messaging/delivery-counts';
import { BulkJobView, BulkRowView, ROW_FILTERS, ROW_STATUS_FILTERS, toJobView, toRowView } from './bulk-job.view';
import type { ListBulkJobsQuery, ListBulkRowsQuery } from './dto/bulk-queries.dto';
import { BulkJobRepository } from './bulk-job.repository';
import type { BulkJobRecord, BulkRowRecord } from './bulk-records';
import { BulkRowReport } from './bulk-row-report';
import { BulkRowRepository } from './bulk-row.repository';
import { canPayNextRow } from './next-row-payment';
import { BulkJobEvents } from './bulk-job-events';
import type { AccountId } from '../common/account-id';

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

/**
 * Reads and state moves of bulk jobs on the job routes. Every job is first read scoped by the
 * caller's account id; the state changes are the repository's (this file holds no SQL).
 */
@Injectable()
export class BulkJobsService {
  constructor(
    private readonly db: UnitOfWork,
    private readonly clock: Clock,
    private readonly cursors: CursorCodec,
    private readonly ledger: LedgerService,
    private readonly jobs: BulkJobRepository,
    private readonly rowRepo: BulkRowRepository,
    private readonly events: BulkJobEvents,
    private readonly delivery: DeliveryCounts,
    private readonly report: BulkRowReport,
  ) {}

  async get(accountId: AccountId, jobId: string): Promise<BulkJobView> {
    return this.view(accountId, await this.load(accountId, jobId));
  }

  /** A job read for `accountId`, with its delivery counts. */
  async view(accountId: AccountId, job: BulkJobRecord): Promise<BulkJobView> {
    return toJobView(job, await this.delivery.ofBulkJob(accountId, job.id));
  }

  async list(accountId: AccountId, q: ListBulkJobsQuery): Promise<JobPage> {
    const limit = q.limit ?? 20;
    const after = this.cursors.decode<string>(`bulk-jobs:${accountId}`, q.cursor);
    const found = await this.jobs.listOwned(accountId, after === null ? null : String(after), limit + 1);
    const hasMore = found.length > limit;
    const page = found.slice(0, limit);
    // One grouped query for the page's delivery counts.
    const delivery = await this.delivery.ofBulkJobs(
      accountId,
      page.map((j) => j.id),
    );
    return {
      jobs: page.map((j) => toJobView(j, delivery.get(j.id))),
      nextCursor: hasMore ? this.cursors.encode(`bulk-jobs:${accountId}`, page[page.length - 1].id) : null,
      hasMore,
    };
  }

  async rows(accountId: AccountId, jobId: string, q: ListBulkRowsQuery): Promise<RowPage> {
    await this.load(accountId, jobId);
    const status = q.status ?? '';
    // (The query DTO checked it; an own-key lookup all the same, never `constructor` & co.)
    if (status !== '' && !Object.hasOwn(ROW_FILTERS, status))
      throw ApiError.validation(`status must be one of ${ROW_STATUS_FILTERS.join(', ')}`);
    const limit = q.limit ?? 100;
    const scope = `bulk-rows:${jobId}:${status}`;
    const after = this.cursors.decode<number>(scope, q.cursor);
    const from = after === null ? null : Number(after);
    // One query per stored status, each walking (job_id, status, idx) in order: `pending` (pending +
    // sending) merges two short ordered reads here instead of having the database sort or filter.
    const found: BulkRowRecord[] = [];
    for (const stored of status ? ROW_FILTERS[status] : [null])
      found.push(...(await this.rowRepo.page(jobId, stored, from, limit + 1)));
    const rows = found.sort((a, b) => a.idx - b.idx).slice(0, limit + 1);
    const hasMore = rows.length > limit;
    const page = await this.report.withMessages(accountId, rows.slice(0, limit));
    return {
      jobId,
      rows: page.map((r) => toRowView(r, accountId)),
      nextCursor: hasMore ? this.cursors.encode(scope, page[page.length - 1].idx) : null,
      hasMore,
    };
  }

  async pause(accountId: AccountId, jobId: string): Promise<BulkJobView> {
    await this.load(accountId, jobId);
    const moved = await this.events.around(
      jobId,
      'bulk_job.paused',
      () => this.jobs.pause(jobId, this.clock.now()),
      (m) => m,
    );
    return this.after(accountId, jobId, moved, 'paused');
  }

  async resume(accountId: AccountId, jobId: string): Promise<BulkJobView> {
    const job = await this.load(accountId, jobId);
    if (job.status !== 'paused') throw invalidState(job.status, 'resumed');
    if (
      job.pauseReason === 'insufficient_balance' &&
      !(await canPayNextRow(this.rowRepo, this.ledger, accountId, jobId, 'pending'))
    ) {
      throw new ApiError('INSUFFICIENT_BALANCE', 'The account still cannot pay for one message');
    }
    return this.after(accountId, jobId, await this.jobs.resume(jobId, this.clock.now()), 'resumed');
  }

  async cancel(accountId: AccountId, jobId: string): Promise<BulkJobView> {
    await this.load(accountId, jobId);
    const now = this.clock.now();
    const moved = await this.events.around(
      jobId,
      'bulk_job.cancelled',
      () => this.db.steps(() => this.jobs.cancel(jobId, now)),
      (m) => m,
    );
    return this.after(accountId, jobId, moved, 'cancelled');
  }

  /** Every failed row back to `pending`, job `queued`; 402 (rows untouched) when one message cannot be paid. */
  async retryFailed(accountId: AccountId, jobId: string): Promise<{ retried: number; job: BulkJobView }> {
    const job = await this.load(accountId, jobId);
    if (job.failedCount === 0) throw new ApiError('NOTHING_TO_RETRY', 'The job has no failed rows');
    if (!(await canPayNextRow(this.rowRepo, this.ledger, accountId, jobId, 'failed'))) {
      throw new ApiError(
        'INSUFFICIENT_BALANCE',
        'Free messages, plan quota and wallet balance cannot pay for one message',
      );
    }
    const now = this.clock.now();
    // The job is read back inside the same transaction: the response shows the state this retry made
    // (`queued`), not whatever a dispatcher did a moment later.
    const result = await this.db.steps(() => this.jobs.retryFailed(jobId, now));
    if (result.retried === 0 || !result.job) throw new ApiError('NOTHING_TO_RETRY', 'The job has no failed rows');
    return { retried: result.retried, job: await this.view(accountId, result.job) };
  }

  private async after(accountId: AccountId, jobId: string, moved: boolean, verb: string): Promise<BulkJobView> {
    const job = await this.load(accountId, jobId);
    if (!moved) throw invalidState(job.status, verb);
    return this.view(accountId, job);
  }

  private async load(accountId: AccountId, jobId: string): Promise<BulkJobRecord> {
    const job = await this.findOwned(accountId, jobId);
    if (!job) throw new ApiError('JOB_NOT_FOUND', 'Bulk job not found');
    return job;
  }

  /** The account's job, or null (the event stream's poll, which adds delivery counts at its own pace). */
  async findOwned(accountId: AccountId, jobId: string): Promise<BulkJobRecord | null> {
    return this.jobs.findOwned(accountId, String(jobId).slice(0, 40));
  }
}

function invalidState(status: string, verb: string): ApiError {
  return new ApiError('INVALID_JOB_STATE', `A ${status} job cannot be ${verb}`);
}
