import { Injectable, OnModuleInit } from '@nestjs/common';
import { ErasureTarget, RecipientEraser, RecipientErasers } from '../../common/erasure/recipient-erasers';
import { inList, sql } from '../../database/sql';
import { updateFound } from '../../database/update-found';
import { UnitOfWork } from '../../database/unit-of-work';

/**
 * Inbound SMS's part of an erasure: the sender's number (`from_address`, as the SMSC gave it: with or
 * without `+`) -> hash, the text emptied; the number it was sent to, provider id and time kept.
 * Found through ix_inbound_sms_from (account_id, from_address).
 */
@Injectable()
export class InboundSmsEraser implements RecipientEraser, OnModuleInit {
  readonly kind = 'inboundSms';

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
      'inbound_sms',
      sql("from_address = ?, text = ''", t.hash),
      sql(`account_id = ? AND from_address IN (${inList(t.forms.length)})`, t.accountId, ...t.forms),
      limit,
    );
  }
}
