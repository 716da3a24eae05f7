import { Injectable, OnModuleInit } from '@nestjs/common';
import { ErasureTarget, RecipientEraser, RecipientErasers } from '../../common/erasure/recipient-erasers';
import { inList, sql } from '../../database/sql';
import { UnitOfWork } from '../../database/unit-of-work';

/**
 * Not in a sender's hands: a queued message is being sent (its payload is still needed); a scheduled
 * one a sender has claimed likewise. A scheduled message nobody holds is erased at once: its payload
 * goes, so the scheduled sender finds it unreadable and fails it with a refund (never sent).
 */
const FREE = "status <> 'queued' AND (status <> 'scheduled' OR lease_expires_at IS NULL)";

/**
 * The message log's part of an erasure: recipient -> hash, payload (text, variables) and the error
 * text removed; status, cost, funding, times, template, sender and bulk origin kept (invoices and job
 * counters stay true). Found through ix_messages_recipient (account_id, recipient).
 */
@Injectable()
export class MessagesEraser implements RecipientEraser, OnModuleInit {
  readonly kind = 'messages';

  constructor(
    private readonly uow: UnitOfWork,
    private readonly erasers: RecipientErasers,
  ) {}

  onModuleInit(): void {
    this.erasers.register(this);
  }

  async erase(t: ErasureTarget, limit: number): Promise<number> {
    // (The derived table lets a LIMIT stand inside IN on every database we run on.)
    return this.uow.exec(
      sql(
        `UPDATE messages SET recipient = ?, payload = NULL, error_message = NULL
         WHERE id IN (SELECT id FROM (SELECT id FROM messages WHERE account_id = ? AND recipient IN (${inList(t.forms.length)}) AND ${FREE} LIMIT ${limit}) m)`,
        t.hash,
        t.accountId,
        ...t.forms,
      ),
    );
  }

  async waiting(t: ErasureTarget): Promise<boolean> {
    const rows = await this.uow.rows(
      sql(
        `SELECT id FROM messages WHERE account_id = ? AND recipient IN (${inList(t.forms.length)}) LIMIT 1`,
        t.accountId,
        ...t.forms,
      ),
    );
    return rows.length > 0;
  }
}
