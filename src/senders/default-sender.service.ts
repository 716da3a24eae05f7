import { Inject, Injectable } from '@nestjs/common';
import { AUDIT_TRAIL, AuditTrail } from '../common/audit/audit-trail';
import { Clock } from '../common/clock';
import { ApiError } from '../common/errors';
import { sql } from '../database/sql';
import { isUniqueViolation } from '../database/db-errors';
import { UnitOfWork } from '../database/unit-of-work';
import { SmsSenderEntity } from './entities/sms-sender.entity';
import { SmsSenderDetailView, toSenderDetailView } from './senders.service';
import type { AccountId } from '../common/account-id';

/**
 * POST /api/v2/sms-senders/{id}/default: an approved sender becomes the account's default (used when
 * a local_sms send names no sender). One unit: clear every default of the account, then set this one.
 * The clearing UPDATE touches all the account's senders in index order, so concurrent switches of one
 * account queue behind each other (no deadlock); the unique index on `default_key` keeps one default
 * whatever happens.
 */
@Injectable()
export class DefaultSenderService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    @Inject(AUDIT_TRAIL) private readonly audit: AuditTrail,
  ) {}

  async makeDefault(accountId: AccountId, id: string): Promise<SmsSenderDetailView> {
    try {
      return await this.switchTo(accountId, id);
    } catch (err) {
      // A concurrent switch committed between our clear and our set: run again, behind it.
      if (!isUniqueViolation(err)) throw err;
      return this.switchTo(accountId, id);
    }
  }

  private switchTo(accountId: AccountId, id: string): Promise<SmsSenderDetailView> {
    return this.uow.transaction(async ({ manager }) => {
      const row = await manager.findOneBy(SmsSenderEntity, { accountId, id });
      if (!row) throw ApiError.notFound('SMS sender');
      if (row.status !== 'approved')
        throw new ApiError('INVALID_STATE', `SMS sender is ${row.status}; only an approved sender can be the default`);
      const now = this.clock.now();
      const before = await manager.findOneBy(SmsSenderEntity, { accountId, isDefault: true });
      await this.uow.exec(
        sql('UPDATE sms_senders SET is_default = 0, default_key = NULL WHERE account_id = ?', accountId),
      );
      const set = await this.uow.exec(
        sql(
          "UPDATE sms_senders SET is_default = 1, default_key = ?, updated_at = ? WHERE id = ? AND account_id = ? AND status = 'approved'",
          accountId,
          now,
          id,
          accountId,
        ),
      );
      if (set !== 1) throw new ApiError('INVALID_STATE', 'SMS sender is no longer approved');
      const after = await manager.findOneByOrFail(SmsSenderEntity, { accountId, id });
      await this.audit.record({
        accountId,
        type: 'sender.default_changed',
        target: id,
        changes: {
          before: before ? { id: before.id, name: before.name } : null,
          after: { id: after.id, name: after.name },
        },
      });
      return toSenderDetailView(after);
    });
  }
}
