import { Injectable } from '@nestjs/common';
import type { AccountId } from '../common/account-id';
import { MessageDeliveryFacts } from '../messaging/message-delivery-facts';
import type { BulkRowRecord } from './bulk-records';

/**
 * The rows report (GET .../rows and rows.csv): a page of a job's rows with what messaging knows of
 * each row's message (SMS encoding and parts, its status, when a receipt said delivered), read from
 * messaging by primary key in one statement per page: bulk never names messages' table.
 */
@Injectable()
export class BulkRowReport {
  constructor(private readonly messages: MessageDeliveryFacts) {}

  /** `rows` (of `accountId`'s job) with their messages' facts; a row without a message keeps nulls. */
  async withMessages(accountId: AccountId, rows: BulkRowRecord[]): Promise<BulkRowRecord[]> {
    const ids = rows.flatMap((r) => (r.messageId === null ? [] : [r.messageId]));
    const facts = await this.messages.of(accountId, ids);
    return rows.map((r) => {
      const m = r.messageId === null ? undefined : facts.get(r.messageId);
      return m
        ? { ...r, encoding: m.encoding, segments: m.segments, messageStatus: m.status, deliveredAt: m.deliveredAt }
        : r;
    });
  }
}
