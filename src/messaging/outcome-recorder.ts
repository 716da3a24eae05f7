import { Injectable, Logger } from '@nestjs/common';
import type { Funding } from '../accounts/funding';
import { LedgerService } from '../accounts/ledger.service';
import { Clock } from '../common/clock';
import { Coalescer } from '../common/coalescer';
import { UnitOfWork } from '../database/unit-of-work';
import { MetricsService } from '../metrics/metrics.service';
import type { DeliveryResult } from './delivery-step';
import type { MessageEntity } from './entities/message.entity';
import { ReceiptIntakeService } from './lifecycle/receipt-intake.service';
import { MessageLogRepository, SentMark } from './message-log.repository';
import {
  Addressee,
  isReceiptFailure,
  MessageFailureCode,
  ProviderFailure,
  SendOutcome,
  SendResult,
  sendResult,
  Settled,
} from './send-outcome';
import type { AccountId } from '../common/account-id';

/**
 * How a provider error is answered. `throw` (single, batch and scheduled sends): the message is
 * failed and refunded, and the caller rethrows the error. `report` (a bulk window): a rate limit
 * leaves the message paid and open for the next window (the provider did not take it); any other
 * error fails it and is reported in the outcome.
 */
export type ErrorPolicy = 'throw' | 'report';

/**
 * The outcome step: writes what became of a paid message. Marking it sent or failed is a conditional
 * UPDATE on a still-open message, and a failure refunds in the same unit, so a message is refunded
 * at most once across replicas; a message settled elsewhere meanwhile is reported as the log has it.
 */
@Injectable()
export class OutcomeRecorder {
  private readonly logger = new Logger(OutcomeRecorder.name);
  /** Bulk windows' sent marks, written together (the same statements serve one window or many). */
  private readonly windows: Coalescer<(SentMark & { accountId: AccountId })[], void>;

  constructor(
    private readonly log: MessageLogRepository,
    private readonly ledger: LedgerService,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly metrics: MetricsService,
    private readonly receipts: ReceiptIntakeService,
  ) {
    this.windows = new Coalescer({
      batch: async (w) => {
        await this.markSent(w.flat());
        return w.map(() => undefined);
      },
      weight: (w) => w.length,
      maxWeight: 1000,
      ...uow.coalescing,
    });
  }

  /** Records a provider call's (or lookup's) result for a paid, open message. */
  async record(
    accountId: AccountId,
    id: string,
    to: Addressee,
    funding: Funding,
    d: DeliveryResult,
    policy: ErrorPolicy,
  ): Promise<SendOutcome> {
    if (d.kind === 'taken') return this.recorded(accountId, id, to);
    if (d.kind === 'answered') {
      if (d.outcome.status === 'sent')
        return this.sent(
          accountId,
          { id, providerMessageId: d.outcome.providerMessageId, providerMessageIds: d.outcome.providerMessageIds },
          to,
          funding,
        );
      return this.fail(accountId, id, to, funding, d.outcome.code, d.outcome.message);
    }
    if (policy === 'report' && d.error.code === 'PROVIDER_RATE_LIMITED')
      return this.keepOpen(accountId, id, to, d.error, d.handedOff);
    return this.fail(accountId, id, to, funding, d.error.code, d.error.message, {}, d.error);
  }

  /** Marks the message sent (a batch of one); receipts that came before it (kept) are applied then. */
  async sent(accountId: AccountId, mark: SentMark, to: Addressee, funding: Funding): Promise<Settled> {
    if (!(await this.markSent([{ ...mark, accountId }])).has(mark.id)) return this.recorded(accountId, mark.id, to);
    return { kind: 'sent', result: sendResult(mark.id, to, 'sent', funding.amount, null, mark.providerMessageId) };
  }

  /**
   * The sent messages of a bulk window (they were reported sent as the provider answered), written
   * with other accounts' windows that arrive meanwhile: one UPDATE, one history INSERT, one of the
   * provider refs and one look-up of receipts kept for their provider ids per batch.
   */
  async sentMany(accountId: AccountId, sent: SentMark[]): Promise<void> {
    if (!sent.length) return;
    const marks = sent.map((s) => ({ ...s, accountId }));
    await this.windows.submit(marks);
  }

  /**
   * Marks messages sent (one, or bulk windows of many accounts): counts the ones this unit moved, one
   * count per account and channel (the mode label is the account's), and applies the receipts kept
   * for them. Returns the ids it moved; the others were settled elsewhere meanwhile.
   */
  private async markSent(marks: (SentMark & { accountId: AccountId })[]): Promise<Set<string>> {
    const { moved } = await this.log.markSent(marks, this.clock.now());
    const counts = new Map<string, { accountId: AccountId; channel: string; n: number }>();
    for (const { accountId, channel } of moved) {
      const key = `${accountId}\n${channel}`;
      const c = counts.get(key) ?? { accountId, channel, n: 0 };
      c.n += 1;
      counts.set(key, c);
    }
    this.uow.afterCommit(() => {
      for (const c of counts.values()) this.metrics.recordMessage(c.accountId, c.channel, 'sent', c.n);
    });
    const ids = new Set(moved.map((r) => r.id));
    await this.applyKept(marks.filter((m) => ids.has(m.id)));
    return ids;
  }

  /** Receipts kept for these messages' provider ids; a failure here leaves them to the sweeper (the send is recorded). */
  private async applyKept(marks: SentMark[]): Promise<void> {
    if (!marks.length) return;
    await this.receipts
      .applyPendingFor(providerIdsOf(marks))
      .catch((err: unknown) => this.logger.warn(`kept receipts not applied yet: ${String(err)}`));
  }

  /**
   * Marks the message failed and refunds it, once: a message already settled elsewhere is neither
   * refunded again nor reported failed (its recorded state is returned). `notHandedOff`: only if no
   * provider call was marked on it meanwhile.
   */
  async fail(
    accountId: AccountId,
    id: string,
    to: Addressee,
    funding: Funding,
    code: MessageFailureCode,
    message: string,
    opts: { notHandedOff?: boolean } = {},
    error: ProviderFailure | null = null,
  ): Promise<Settled> {
    const now = this.clock.now();
    const changed = await this.uow.transaction(async () => {
      const marked = await this.log.markFailed(accountId, id, code, message, now, opts);
      if (marked) await this.ledger.refundMany(accountId, [funding]);
      return marked;
    });
    if (!changed) return this.recorded(accountId, id, to);
    return { kind: 'failed', error, result: this.counted(accountId, sendResult(id, to, 'failed', 0, code, null)) };
  }

  /** A scheduled message just paid and recorded (counted as it is committed). */
  scheduled(accountId: AccountId, id: string, to: Addressee, funding: Funding, scheduleAt: number): SendResult {
    return this.counted(accountId, sendResult(id, to, 'scheduled', funding.amount, null, null, scheduleAt));
  }

  /** The message as the log has it now (after another sender settled or took it). */
  async recorded(accountId: AccountId, id: string, to: Addressee): Promise<Settled> {
    const row = await this.log.findOwned(accountId, id);
    if (!row) throw new Error(`message ${id} is not in the log`);
    return { kind: 'settled_elsewhere', result: resultOfRow(row, to) };
  }

  /** A rate-limited message stays paid and queued; a hand-off mark set for the refused call is taken back. */
  private async keepOpen(
    accountId: AccountId,
    id: string,
    to: Addressee,
    error: ProviderFailure,
    handedOff: boolean,
  ): Promise<SendOutcome> {
    if (handedOff && !(await this.log.clearHandOff(accountId, id, this.clock.now())))
      return this.recorded(accountId, id, to);
    return {
      kind: 'not_attempted',
      reason: 'rate_limited',
      paid: true,
      retryAfterMs: (error.extra.retryAfterSeconds ?? 0) * 1000,
    };
  }

  /**
   * messages_total: called exactly where this step's own write moved the message into the result's
   * status (a conditional UPDATE that changed the row, or the payment unit of a scheduled message),
   * and counted once that write is committed, so each move is counted once across replicas.
   */
  private counted(accountId: AccountId, r: SendResult): SendResult {
    const status = r.status;
    if (status !== 'queued') this.uow.afterCommit(() => this.metrics.recordMessage(accountId, r.channel, status));
    return r;
  }
}

/**
 * A logged message as a send result: status as recorded; `cancelled` reads as failed, CANCELLED;
 * delivered, read and failed by a receipt (after it was sent) read as sent: the send's outcome.
 */
export function resultOfRow(row: MessageEntity, addressee: Addressee): SendResult {
  const to: Addressee = { ...addressee, encoding: row.encoding, segments: row.segments };
  if (row.status === 'cancelled') return sendResult(row.id, to, 'failed', 0, 'CANCELLED', null, row.scheduledAt);
  if (wasSent(row))
    return sendResult(row.id, to, 'sent', Number(row.cost), null, row.providerMessageId, row.scheduledAt);
  return sendResult(
    row.id,
    to,
    row.status as SendResult['status'],
    Number(row.cost),
    row.errorCode,
    row.providerMessageId,
    row.scheduledAt,
  );
}

function providerIdsOf(marks: SentMark[]): string[] {
  return marks.flatMap((m) =>
    (m.providerMessageIds?.length ? m.providerMessageIds : [m.providerMessageId]).map((p) => p.slice(0, 200)),
  );
}

/** The provider took the message: sent, or moved on by its receipts since (delivered, read, failed after sent). */
export function wasSent(row: MessageEntity): boolean {
  return (
    row.status === 'sent' ||
    row.status === 'delivered' ||
    row.status === 'read' ||
    (row.status === 'failed' && isReceiptFailure(row.errorCode))
  );
}
