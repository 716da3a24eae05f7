import { Injectable, Logger } from '@nestjs/common';
import type { Writable } from 'node:stream';
import { streamCsv } from '../../common/csv/csv-stream';
import { ApiError } from '../../common/errors';
import type { MessageEntity } from '../entities/message.entity';
import { toMessageView } from '../message-view';
import { MessageExportRepository } from './message-export.repository';
import type { AccountId } from '../../common/account-id';

const PAGE = 1000;

export const EXPORT_COLUMNS = [
  'id',
  'createdAt',
  'to',
  'channel',
  'messageType',
  'sender',
  'templateId',
  'status',
  'cost',
  'paidFrom',
  'encoding',
  'segments',
  'errorCode',
  'errorMessage',
  'bulkJobId',
  'rowIndex',
  'scheduledAt',
  'sentAt',
  'deliveredAt',
  'readAt',
  'failedAt',
] as const;

/** The period of an export from its query (`from` inclusive, `to` exclusive): 400 unless from < to. */
export function exportPeriod(from: string, to: string): { from: number; to: number } {
  const f = Date.parse(from);
  const t = Date.parse(to);
  if (!(f < t)) throw ApiError.validation('from must be before to');
  return { from: f, to: t };
}

/**
 * GET /messages/export.csv: an account's message log for a period, oldest first, as the bulk rows CSV
 * is written (streamCsv: header, CRLF, formula cells neutralised). Pages of PAGE messages by (created_at,
 * id), one read ahead, only as fast as the client takes the bytes: memory holds about two pages
 * whatever the period's size. Cells are the message log's view (an erased recipient shows its hash).
 */
@Injectable()
export class MessageExport {
  private readonly logger = new Logger(MessageExport.name);

  constructor(private readonly repo: MessageExportRepository) {}

  writeCsv(accountId: AccountId, period: { from: number; to: number }, out: Writable, requestId?: string): void {
    streamCsv(this.records(accountId, period), out, this.logger, { accountId, requestId });
  }

  private async *records(
    accountId: AccountId,
    period: { from: number; to: number },
  ): AsyncGenerator<readonly unknown[]> {
    yield EXPORT_COLUMNS;
    let next: Promise<MessageEntity[]> | null = this.page(accountId, period, null);
    while (next) {
      const rows: MessageEntity[] = await next;
      const last = rows[rows.length - 1];
      next =
        rows.length === PAGE ? this.page(accountId, period, { createdAt: Number(last.createdAt), id: last.id }) : null;
      for (const m of rows) {
        const v = toMessageView(m);
        yield EXPORT_COLUMNS.map((c) => v[c]);
      }
    }
  }

  private page(
    accountId: AccountId,
    period: { from: number; to: number },
    after: { createdAt: number; id: string } | null,
  ): Promise<MessageEntity[]> {
    const p = this.repo.page({ accountId, ...period, after, limit: PAGE });
    // Read ahead for a client that may leave first: its failure then has no one to await it.
    p.catch(() => undefined);
    return p;
  }
}
