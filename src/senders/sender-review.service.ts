import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { ApiError } from '../common/errors';
import { iso } from '../database/columns';
import { isUniqueViolation } from '../database/db-errors';
import { WebhooksService } from '../webhooks/webhooks.service';
import { SmsSenderEntity } from './entities/sms-sender.entity';
import { SmsSenderDetailView, toSenderDetailView } from './senders.service';
import { Tx, UnitOfWork } from '../database/unit-of-work';
import { EVENT_SINK, EventSink } from '../messaging/events/event-sink';
import type { AccountId } from '../common/account-id';

export type ReviewDecision = 'approved' | 'rejected';
export type AdminSmsSenderView = SmsSenderDetailView & { accountId: AccountId };
/** The sender a review is about: by id (the operator), or by id within one account. */
type Which = { id: string; accountId?: AccountId };

/**
 * Operator review. The status change and its webhook event commit together (outbox row in the same
 * transaction), so an approval can neither be lost nor announced without having happened.
 */
@Injectable()
export class SenderReviewService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly webhooks: WebhooksService,
    private readonly clock: Clock,
    @Inject(EVENT_SINK) private readonly events: EventSink,
  ) {}

  /** The operator reviews a sender of any account. */
  async review(id: string, decision: ReviewDecision, reason: string | null): Promise<AdminSmsSenderView> {
    return this.decide({ id }, decision, reason);
  }

  /**
   * A review of one account's own sender (test-mode controls: the owner plays the reviewer of the test
   * account's requests); another account's sender is NOT_FOUND. Same unit, events and default rule.
   */
  async reviewOwn(
    accountId: AccountId,
    id: string,
    decision: ReviewDecision,
    reason: string | null,
  ): Promise<SmsSenderDetailView> {
    const { accountId: _owner, ...view } = await this.decide({ id, accountId }, decision, reason);
    return view;
  }

  private async decide(which: Which, decision: ReviewDecision, reason: string | null): Promise<AdminSmsSenderView> {
    // The usual refusals (unknown, not pending) are answered from one read, without a unit of work.
    const current = await this.dataSource.manager.findOneBy(SmsSenderEntity, which);
    if (!current) throw ApiError.notFound('SMS sender');
    if (current.status !== 'pending') throw notPending(current.status);
    try {
      return await this.uow.transaction((tx) => this.reviewIn(tx, which, decision, reason));
    } catch (err) {
      // Two senders of one account approved at the same moment both tried to become the default:
      // the unique index let one win; the other runs again and sees that default.
      if (!isUniqueViolation(err)) throw err;
      return this.uow.transaction((tx) => this.reviewIn(tx, which, decision, reason));
    }
  }

  async listForOperator(status: string | undefined): Promise<AdminSmsSenderView[]> {
    const rows = await this.dataSource.manager.find(SmsSenderEntity, {
      where: status ? { status: status as SmsSenderEntity['status'] } : {},
      order: { id: 'ASC' },
      take: 500,
    });
    return rows.map((r) => ({ ...toSenderDetailView(r), accountId: r.accountId }));
  }

  private async reviewIn(
    tx: Tx,
    which: Which,
    decision: ReviewDecision,
    reason: string | null,
  ): Promise<AdminSmsSenderView> {
    const em = tx.manager;
    const row = await em.findOneBy(SmsSenderEntity, which);
    if (!row) throw ApiError.notFound('SMS sender');
    const id = row.id;
    if (row.status !== 'pending') throw notPending(row.status);
    const now = this.clock.now();
    // The first transactional sender approved for an account becomes its default (a promotional one
    // only when the owner chooses it: it would make every send without a sender marketing).
    const isDefault =
      decision === 'approved' &&
      row.type !== 'promotional' &&
      !(await em.existsBy(SmsSenderEntity, { accountId: row.accountId, isDefault: true }));
    const res = await em
      .createQueryBuilder()
      .update(SmsSenderEntity)
      .set({
        status: decision,
        reviewReason: reason,
        reviewedAt: now,
        updatedAt: now,
        isDefault,
        defaultKey: isDefault ? row.accountId : null,
      })
      .where('id = :id AND status = :pending', { id, pending: 'pending' })
      .execute();
    if (res.affected !== 1) throw notPending('reviewed');
    Object.assign(row, {
      status: decision,
      reviewReason: reason,
      reviewedAt: now,
      updatedAt: now,
      isDefault,
      defaultKey: isDefault ? row.accountId : null,
    });

    if (row.webhookUrl !== null && row.sealedWebhookSecret !== null) {
      const event = `sms_sender.${decision}`;
      await this.webhooks.enqueue(em, {
        accountId: row.accountId,
        url: row.webhookUrl,
        event,
        sealedSecret: row.sealedWebhookSecret,
        apiKeyHeader: false,
        body: {
          event,
          timestamp: iso(now),
          data: { smsSender: { id: row.id, name: row.name, status: row.status, isDefault: row.isDefault }, reason },
        },
      });
    }
    // Event endpoints: sms_sender.* with the sender as the API shows it.
    await this.events.record(tx, [
      { accountId: row.accountId, type: `sms_sender.${decision}`, data: { ...toSenderDetailView(row) }, at: now },
    ]);
    return { ...toSenderDetailView(row), accountId: row.accountId };
  }
}

function notPending(status: string): ApiError {
  return new ApiError('INVALID_STATE', `SMS sender is already ${status}; only a pending sender can be reviewed`);
}
