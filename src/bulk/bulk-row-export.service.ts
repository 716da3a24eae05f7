import { Injectable, Logger } from '@nestjs/common';
import type { Writable } from 'node:stream';
import { streamCsv } from '../common/csv/csv-stream';
import { toRowView } from './bulk-job.view';
import type { BulkRowRecord } from './bulk-records';
import { BulkRowReport } from './bulk-row-report';
import { BulkRowRepository } from './bulk-row.repository';
import { BulkSettings } from './bulk-settings';
import type { AccountId } from '../common/account-id';

export const CSV_COLUMNS = [
  'rowIndex',
  'to',
  'channel',
  'status',
  'messageId',
  'errorCode',
  'errorMessage',
  'sentAt',
  'deliveryStatus',
  'deliveredAt',
  'encoding',
  'segments',
] as const;

/**
 * GET /messages/bulk/{jobId}/rows.csv: the per-row report as CSV. Rows are read in pages by index
 * (the primary key order, keyset: no OFFSET) only as fast as the client takes the bytes, so memory
 * holds about one page whatever the job's size. Each page is read when it is reached: rows a
 * running job sends meanwhile show the state of their page's read.
 */
@Injectable()
export class BulkRowExport {
  private readonly logger = new Logger(BulkRowExport.name);

  constructor(
    private readonly rows: BulkRowRepository,
    private readonly report: BulkRowReport,
    private readonly settings: BulkSettings,
  ) {}

  /**
   * Streams the rows of `jobId` (the caller checked it is `accountId`'s) into `out`. A failure once
   * bytes are out cannot become an error answer: every stream is destroyed (the client sees the
   * connection end early, never a complete-looking file) and the failure is logged.
   */
  writeCsv(accountId: AccountId, jobId: string, out: Writable, requestId?: string): void {
    streamCsv(this.records(accountId, jobId), out, this.logger, { jobId, requestId });
  }

  private async *records(accountId: AccountId, jobId: string): AsyncGenerator<readonly unknown[]> {
    yield CSV_COLUMNS;
    const size = this.settings.exportPageRows;
    // One page read ahead: the database reads the next page while this one is written out.
    let next: Promise<BulkRowRecord[]> | null = this.page(accountId, jobId, null, size);
    while (next) {
      const rows: BulkRowRecord[] = await next;
      next = rows.length === size ? this.page(accountId, jobId, rows[rows.length - 1].idx, size) : null;
      for (const row of rows) {
        const r = toRowView(row, accountId);
        yield [
          r.index,
          r.to,
          r.channel,
          r.status,
          r.messageId,
          r.errorCode,
          r.errorMessage,
          r.sentAt,
          r.deliveryStatus,
          r.deliveredAt,
          r.encoding,
          r.segments,
        ];
      }
    }
  }

  /** A page of rows with their messages' facts (two reads: the rows, then their messages by primary key). */
  private page(accountId: AccountId, jobId: string, after: number | null, size: number): Promise<BulkRowRecord[]> {
    const p = this.rows.page(jobId, null, after, size).then((rows) => this.report.withMessages(accountId, rows));
    // Read ahead for a client that may leave first: its failure then has no one to await it.
    p.catch(() => undefined);
    return p;
  }
}
