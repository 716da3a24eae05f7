import { Injectable, OnModuleInit } from '@nestjs/common';
import { ErasureTarget, RecipientEraser, RecipientErasers } from '../common/erasure/recipient-erasers';
import { inList, sql } from '../database/sql';
import { updateFound } from '../database/update-found';
import { UnitOfWork } from '../database/unit-of-work';

/**
 * Verifications' part of an erasure: the recipient -> hash (the code is stored only as its hash;
 * status, attempts and times kept). A pending code can no longer be checked against the number.
 * Found through ix_verifications_recipient (account_id, recipient).
 */
@Injectable()
export class VerificationsEraser implements RecipientEraser, OnModuleInit {
  readonly kind = 'verifications';

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
      'verifications',
      sql('recipient = ?', t.hash),
      sql(`account_id = ? AND recipient IN (${inList(t.forms.length)})`, t.accountId, ...t.forms),
      limit,
    );
  }
}
