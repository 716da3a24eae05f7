import { Injectable, Logger } from '@nestjs/common';
import type { Writable } from 'node:stream';
import { streamCsv } from '../common/csv/csv-stream';
import { AppConfig } from '../config/app-config';
import { requireRecipient } from './recipient-key';
import type { SuppressionChannel, SuppressionReason, SuppressionRecord } from './suppression-types';
import { SuppressionQuery, SuppressionsService } from './suppressions.service';
import type { AccountId } from '../common/account-id';

/** The list's filters, as the API takes them. */
export interface ExportFilter {
  recipient?: string;
  channel?: SuppressionChannel;
  reason?: SuppressionReason;
}

export const SUPPRESSION_CSV_COLUMNS = ['recipient', 'channel', 'scope', 'reason', 'source', 'createdAt'] as const;

/** The list's filters, checked and normalised. */
export type ExportQuery = Omit<SuppressionQuery, 'after' | 'limit'>;

/** Entries read per query (keyset pages: one page in memory at a time). */
const PAGE = 1000;

/**
 * GET /api/v2/suppressions/export: the list (with the list's filters) as CSV, oldest first, read in
 * pages only as fast as the client takes the bytes. Erased entries (no recipient, only its hash) are
 * left out: a row without a recipient is of no use to a CSV reader, and the file re-imports as it is.
 */
@Injectable()
export class SuppressionsExport {
  private readonly logger = new Logger(SuppressionsExport.name);
  private readonly region: string;

  constructor(
    private readonly suppressions: SuppressionsService,
    config: AppConfig,
  ) {
    this.region = config.messaging.defaultRegion;
  }

  /** The filters as the list reads them (a bad recipient is 400, before any CSV byte). */
  filter(q: ExportFilter): ExportQuery {
    return {
      recipient: q.recipient === undefined ? undefined : requireRecipient(q.recipient, this.region),
      channel: q.channel,
      reason: q.reason,
    };
  }

  writeCsv(accountId: AccountId, filter: ExportQuery, out: Writable, requestId: string): void {
    streamCsv(this.records(accountId, filter), out, this.logger, { accountId, requestId });
  }

  private async *records(accountId: AccountId, filter: ExportQuery): AsyncGenerator<readonly unknown[]> {
    yield SUPPRESSION_CSV_COLUMNS;
    let after: { createdAt: number; id: string } | null = null;
    for (;;) {
      const page: SuppressionRecord[] = await this.suppressions.list(accountId, { ...filter, after, limit: PAGE });
      for (const e of page) {
        if (e.recipient === null) continue;
        yield [e.recipient, e.channel, e.scope, e.reason, e.source, new Date(e.createdAt).toISOString()];
      }
      const last = page[page.length - 1];
      if (page.length < PAGE || !last) return;
      after = { createdAt: last.createdAt, id: last.id };
    }
  }
}
