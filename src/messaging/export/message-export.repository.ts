import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '../../database/unit-of-work';
import { MessageEntity } from '../entities/message.entity';
import type { AccountId } from '../../common/account-id';

/** A page of the export: messages created in [from, to), after `after` in (created_at, id) order. */
export interface ExportPage {
  accountId: AccountId;
  from: number;
  to: number;
  after: { createdAt: number; id: string } | null;
  limit: number;
}

/** The export's read of the message log (ix_messages_account_created: an index range per page). */
@Injectable()
export class MessageExportRepository {
  constructor(private readonly uow: UnitOfWork) {}

  async page(p: ExportPage): Promise<MessageEntity[]> {
    const qb = this.uow.manager
      .getRepository(MessageEntity)
      .createQueryBuilder('m')
      .where('m.account_id = :accountId', { accountId: p.accountId })
      .andWhere('m.created_at >= :from AND m.created_at < :to', { from: p.from, to: p.to });
    if (p.after)
      qb.andWhere('(m.created_at > :ac OR (m.created_at = :ac AND m.id > :aid))', {
        ac: p.after.createdAt,
        aid: p.after.id,
      });
    return qb.orderBy('m.created_at', 'ASC').addOrderBy('m.id', 'ASC').limit(p.limit).getMany();
  }
}
