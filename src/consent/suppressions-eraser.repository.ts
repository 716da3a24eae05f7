import { Injectable, OnModuleInit } from '@nestjs/common';
import { ErasureTarget, RecipientEraser, RecipientErasers } from '../common/erasure/recipient-erasers';
import { sql } from '../database/sql';
import { updateFound } from '../database/update-found';
import { UnitOfWork } from '../database/unit-of-work';

/**
 * The suppression list's part of an erasure: the plain recipient is dropped and the entry kept, so the
 * opt-out still holds (entries are looked up by the recipient's hash, which the erasure keeps). Found
 * through the unique (account_id, recipient_hash, channel) key.
 */
@Injectable()
export class SuppressionsEraser implements RecipientEraser, OnModuleInit {
  readonly kind = 'suppressions';

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
      'suppressions',
      sql('recipient = NULL'),
      sql('account_id = ? AND recipient_hash = ? AND recipient IS NOT NULL', t.accountId, t.hash),
      limit,
    );
  }
}
