import { Injectable, OnModuleInit } from '@nestjs/common';
import { ErasureTarget, RecipientEraser, RecipientErasers } from '../common/erasure/recipient-erasers';
import { inList, sql } from '../database/sql';
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
    return this.uow.exec(
      sql(
        `UPDATE verifications SET recipient = ?
         WHERE id IN (SELECT id FROM (SELECT id FROM verifications WHERE account_id = ? AND recipient IN (${inList(t.forms.length)}) LIMIT ${limit}) v)`,
        t.hash,
        t.accountId,
        ...t.forms,
      ),
    );
  }
}
