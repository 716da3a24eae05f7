import { Injectable, OnModuleInit } from '@nestjs/common';
import { ErasureTarget, RecipientEraser, RecipientErasers } from '../../common/erasure/recipient-erasers';
import { inList, sql } from '../../database/sql';
import { updateFound } from '../../database/update-found';
import { UnitOfWork } from '../../database/unit-of-work';

/**
 * The sandbox's part of an erasure: what the sandbox "delivered" to the recipient (its record of the
 * address, text and subject) -> hash, text and subject emptied; channel, outcome and times kept. Found
 * among the account's deliveries (ix_sandbox_deliveries_account): the sandbox keeps them
 * RETENTION_SANDBOX_DAYS (7 by default), so that range stays small, and the send path pays for no
 * recipient index.
 */
@Injectable()
export class SandboxDeliveriesEraser implements RecipientEraser, OnModuleInit {
  readonly kind = 'sandboxDeliveries';

  constructor(
    private readonly uow: UnitOfWork,
    private readonly erasers: RecipientErasers,
  ) {}

  onModuleInit(): void {
    this.erasers.register(this);
  }

  erase(t: ErasureTarget, limit: number): Promise<number> {
    return updateFound(
      this.uow,
      'sandbox_deliveries',
      sql("recipient = ?, text = '', subject = NULL", t.hash),
      sql(`account_id = ? AND recipient IN (${inList(t.forms.length)})`, t.accountId, ...t.forms),
      limit,
    );
  }
}
