import { Injectable, OnModuleInit } from '@nestjs/common';
import { ErasureTarget, RecipientEraser, RecipientErasers } from '../../common/erasure/recipient-erasers';
import { inList, sql } from '../../database/sql';
import { updateFound } from '../../database/update-found';
import { UnitOfWork } from '../../database/unit-of-work';

/**
 * Inbound SMS's part of an erasure: the sender's number (`from_address`, as the SMSC gave it: with or
 * without `+`) -> hash, the text emptied; the number it was sent to, provider id and time kept.
 * Found through ix_inbound_sms_from (account_id, from_address). The parts of a joined SMS go first (the
 * same number and text, found through the SMS they belong to), in bounded statements, so none is left
 * naming the number once its SMS no longer does. Parts of a set still open (at most INBOUND hold, 10
 * minutes) belong to no account yet and are not touched.
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
    const ofTarget = sql(
      `inbound_sms_id IN (SELECT id FROM inbound_sms WHERE account_id = ? AND from_address IN (${inList(t.forms.length)}))`,
      t.accountId,
      ...t.forms,
    );
    const partsOf = sql(`from_address <> ? AND ${ofTarget.sql}`, t.hash, ...ofTarget.params);
    while (
      (await updateFound(this.uow, 'inbound_sms_parts', sql("from_address = ?, text = ''", t.hash), partsOf, limit)) ===
      limit
    ) {
      // a full batch: there may be more parts
    }
    return updateFound(
      this.uow,
      'inbound_sms',
      sql("from_address = ?, text = ''", t.hash),
      sql(`account_id = ? AND from_address IN (${inList(t.forms.length)})`, t.accountId, ...t.forms),
      limit,
    );
  }
}
