import { Injectable, OnModuleInit } from '@nestjs/common';
import { ErasureTarget, RecipientEraser, RecipientErasers } from '../../common/erasure/recipient-erasers';
import { decoders, inList, query, sql } from '../../database/sql';
import { updateFound } from '../../database/update-found';
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
    return updateFound(
      this.uow,
      'messages',
      sql('recipient = ?, payload = NULL, error_message = NULL', t.hash),
      sql(`account_id = ? AND recipient IN (${inList(t.forms.length)}) AND ${FREE}`, t.accountId, ...t.forms),
      limit,
    );
  }

  async waiting(t: ErasureTarget): Promise<boolean> {
    const rows = await this.uow.read(
      query(
        decoders.id,
        sql(
          `SELECT id FROM messages WHERE account_id = ? AND recipient IN (${inList(t.forms.length)}) LIMIT 1`,
          t.accountId,
          ...t.forms,
        ),
      ),
    );
    return rows.length > 0;
  }
}
