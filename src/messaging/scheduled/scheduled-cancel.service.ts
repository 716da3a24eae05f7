import { Injectable } from '@nestjs/common';
import { LedgerService } from '../../accounts/ledger.service';
import { Clock } from '../../common/clock';
import { ApiError } from '../../common/errors';
import type { MessageEntity } from '../entities/message.entity';
import { UnitOfWork } from '../../database/unit-of-work';
import { MetricsService } from '../../metrics/metrics.service';
import { MessageLogRepository } from '../message-log.repository';
import { fundingOf } from '../message-payments';
import { MessageView, toMessageView } from '../message-view';
import type { AccountId } from '../../common/account-id';

/**
 * POST /api/v2/messages/{id}/cancel: a scheduled message that no sender has taken becomes
 * `cancelled` and its payment goes back to the source it came from. One conditional UPDATE and the
 * refund share a transaction, so a cancel and the scheduled sender (any replica) cannot both win,
 * and a second cancel finds nothing to change (409): never two refunds.
 */
@Injectable()
export class ScheduledCancelService {
  constructor(
    private readonly log: MessageLogRepository,
    private readonly ledger: LedgerService,
    private readonly clock: Clock,
    private readonly metrics: MetricsService,
    private readonly uow: UnitOfWork,
  ) {}

  async cancel(accountId: AccountId, id: string): Promise<MessageView> {
    const row = await this.log.findOwned(accountId, id);
    if (!row) throw ApiError.notFound('Message');
    if (row.status !== 'scheduled') throw notCancellable(row);
    const paid = { cost: Number(row.cost), paidFrom: row.paidFrom };
    const won = await this.uow.transaction(async () => {
      if (!(await this.log.markCancelled(accountId, id, paid, this.clock.now()))) return false;
      // The pipeline's refund: every unit (SMS part) back to its source.
      await this.ledger.refundMany(accountId, [fundingOf(row)]);
      return true;
    });
    const after = await this.log.findOwned(accountId, id);
    if (!after) throw ApiError.notFound('Message');
    if (!won) throw notCancellable(after);
    this.metrics.recordMessage(after.accountId, after.channel, 'cancelled');
    return toMessageView(after);
  }
}

function notCancellable(m: MessageEntity): ApiError {
  const why: Record<string, string> = {
    sent: 'it was sent already',
    failed: 'it failed already (and was refunded)',
    cancelled: 'it was cancelled already',
    queued: 'it is being sent',
    // Still `scheduled` but leased: a sender has taken it (or crashed while holding it and will settle it).
    scheduled: 'it is being sent',
  };
  return new ApiError(
    'INVALID_STATE',
    `The message cannot be cancelled: ${why[m.status] ?? `its status is ${m.status}`}; only a scheduled message that is not being sent can be cancelled`,
  );
}
