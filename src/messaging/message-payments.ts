import { Injectable } from '@nestjs/common';
import type { Funding, FundingSource } from '../accounts/funding';
import { LedgerService } from '../accounts/ledger.service';
import { AccountDebit, LedgerBatch, LedgerBatchConflict } from '../accounts/ledger-batch';
import { Coalescer, RetryWithout } from '../common/coalescer';
import { Clock } from '../common/clock';
import { ApiError } from '../common/errors';
import { newId } from '../common/ids';
import { UnitOfWork } from '../database/unit-of-work';
import type { MessageEntity } from './entities/message.entity';
import type { LogOrigin } from './log-origin';
import { MessageLogRepository, NewLogEntry } from './message-log.repository';
import { ProviderGateway } from './provider-gateway';
import { billableUnits, type ValidatedMessage } from './validation/validated-message';
import type { AccountId } from '../common/account-id';

/** A message of a bulk window, to be paid and recorded under its id. */
export interface WindowPayItem {
  id: string;
  msg: ValidatedMessage;
  origin: LogOrigin;
}

interface WindowPayment {
  accountId: AccountId;
  items: WindowPayItem[];
}

/** Messages per batch of windows (19 parameters each in the log's INSERT: under every dialect's limit). */
const MAX_BATCH_MESSAGES = 1000;

/** A message paid and recorded, ready for its provider call (or its scheduled time). */
export interface PaidMessage {
  id: string;
  msg: ValidatedMessage;
  funding: Funding;
}

/** What a logged message was paid with (a row without a source was paid from the wallet; every unit of it from that source). */
export function fundingOf(row: Pick<MessageEntity, 'paidFrom' | 'cost' | 'segments'>): Funding {
  return { source: (row.paidFrom ?? 'wallet') as FundingSource, amount: Number(row.cost), units: billableUnits(row) };
}

interface PaymentGroup {
  channel: ValidatedMessage['channel'];
  units: number;
  indexes: number[];
}

/** Indexes of `items` grouped by channel and billable units, groups in order of first appearance. */
function paymentGroups(msgs: ValidatedMessage[]): PaymentGroup[] {
  const groups = new Map<string, PaymentGroup>();
  msgs.forEach((msg, i) => {
    const units = billableUnits(msg);
    const key = `${msg.channel}:${units}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { channel: msg.channel, units, indexes: [] }));
    g.indexes.push(i);
  });
  return [...groups.values()];
}

/**
 * The payment step: each unit debits the ledger and records the paid messages (`queued`, or
 * `scheduled`) together, so a failed insert takes nothing and nothing is recorded unpaid.
 */
@Injectable()
export class MessagePayments {
  private readonly windows: Coalescer<WindowPayment, (Funding | null)[] | ApiError>;

  constructor(
    private readonly ledger: LedgerService,
    private readonly log: MessageLogRepository,
    private readonly gateway: ProviderGateway,
    private readonly clock: Clock,
    private readonly uow: UnitOfWork,
    private readonly batch: LedgerBatch,
  ) {
    this.windows = new Coalescer({
      batch: (r) => this.payWindows(r),
      weight: (r) => r.items.length,
      maxWeight: MAX_BATCH_MESSAGES,
      ...uow.coalescing,
    });
  }

  /** One message; throws INSUFFICIENT_BALANCE / SUBSCRIPTION_INACTIVE (nothing taken) or the insert's error. */
  async payOne(accountId: AccountId, id: string, msg: ValidatedMessage, origin: LogOrigin): Promise<Funding> {
    return this.uow.transaction(async () => {
      const funding = await this.ledger.debit(accountId, msg.channel, billableUnits(msg));
      await this.log.insert([entry(accountId, { id, msg, funding }, origin)], this.clock.now());
      return funding;
    });
  }

  /**
   * A batch (one content, one channel, so one number of parts): all paid, with at most three UPDATEs
   * per number of parts, or 402 with nothing taken; one INSERT. The queued ones are leased for as long as the batch may take (one provider
   * timeout each, plus a second), so the stale-send reconciler leaves them to this request.
   */
  async payBatch(accountId: AccountId, msgs: ValidatedMessage[], origin: LogOrigin): Promise<PaidMessage[]> {
    return this.uow.transaction(async () => {
      const fundings: Funding[] = [];
      for (const g of paymentGroups(msgs)) {
        const got = await this.ledger.debitMany(accountId, g.channel, g.indexes.length, {
          allOrNothing: true,
          units: g.units,
        });
        g.indexes.forEach((i, k) => (fundings[i] = got[k]));
      }
      const paid = msgs.map((msg, i) => ({ id: newId('msg'), msg, funding: fundings[i] }));
      const now = this.clock.now();
      const leaseUntil = now + paid.length * (this.gateway.timeoutMs + 1000);
      await this.log.insert(
        paid.map((p) => ({
          ...entry(accountId, p, origin),
          leaseUntil: p.msg.scheduleAt === null ? leaseUntil : undefined,
        })),
        now,
      );
      return paid;
    });
  }

  /**
   * A bulk window: in order, as many as the balance covers, and one INSERT of the paid ones, in one
   * unit. Returns each item's funding, null past the balance (unpaid, unrecorded). Throws
   * SUBSCRIPTION_INACTIVE (or NOT_FOUND for an unknown account) with nothing taken.
   */
  async payWindow(accountId: AccountId, items: WindowPayItem[]): Promise<(Funding | null)[]> {
    // With other accounts' windows arriving meanwhile; inside an open unit, alone and part of it.
    const paid = await this.windows.submit({ accountId, items });
    if (paid instanceof ApiError) throw paid;
    return paid;
  }

  /**
   * Windows of one account or many in one unit (a batch of one is a batch): one debit of them all
   * (LedgerBatch: a locking read and at most three UPDATEs), one INSERT of every paid message. An
   * account that may not pay (unknown, inactive subscription) gets its refusal and nothing is taken
   * for it; the others are paid. A conflict on some accounts' balances undoes the unit, which is
   * written again without their windows (then each of them alone).
   */
  private async payWindows(reqs: WindowPayment[]): Promise<((Funding | null)[] | ApiError)[]> {
    return this.uow.transaction(async () => {
      const groupsOf = reqs.map((r) => paymentGroups(r.items.map((it) => it.msg)));
      const paid = await this.debitWindows(reqs, groupsOf);
      const entries: NewLogEntry[] = [];
      const answers = reqs.map((r, i) => {
        const got = paid[i];
        if (got instanceof ApiError) return got;
        const fundings: (Funding | null)[] = r.items.map(() => null);
        groupsOf[i].forEach((g, k) => got[k].forEach((f, j) => (fundings[g.indexes[j]] = f)));
        entries.push(...paidEntries(r.accountId, r.items, fundings));
        return fundings;
      });
      await this.log.insert(entries, this.clock.now());
      return answers;
    });
  }

  /** A conflict names the accounts it touched: their windows are written again apart (a window alone fails with it). */
  private async debitWindows(reqs: WindowPayment[], groupsOf: PaymentGroup[][]): Promise<AccountDebit[]> {
    try {
      return await this.batch.debitAcross(
        reqs.map((r, i) => ({
          accountId: r.accountId,
          wants: groupsOf[i].map((g) => ({ channel: g.channel, units: g.units, count: g.indexes.length })),
        })),
      );
    } catch (err) {
      if (!(err instanceof LedgerBatchConflict) || reqs.length === 1) throw err;
      const lost = new Set(err.accountIds);
      throw new RetryWithout(
        reqs.flatMap((r, i) => (lost.has(r.accountId) ? [i] : [])),
        err.message,
      );
    }
  }

  /**
   * A message that failed before reaching the provider (refunded), paid again and back to `queued`,
   * in one unit: a requeue that lost a race (a concurrent retry) rolls the payment back.
   */
  async payAgain(accountId: AccountId, row: MessageEntity, msg: ValidatedMessage): Promise<Funding> {
    return this.uow.transaction(async () => {
      const funding = await this.ledger.debit(accountId, msg.channel, billableUnits(msg));
      if (!(await this.log.requeue(accountId, row.id, funding, msg, this.clock.now())))
        throw new ApiError('CONFLICT', 'The message is being retried concurrently');
      return funding;
    });
  }
}

/** The paid ones of a window's items as log entries. */
function paidEntries(accountId: AccountId, items: WindowPayItem[], fundings: (Funding | null)[]): NewLogEntry[] {
  return items.flatMap((it, i) => {
    const funding = fundings[i];
    return funding ? [entry(accountId, { id: it.id, msg: it.msg, funding }, it.origin)] : [];
  });
}

function entry(accountId: AccountId, p: PaidMessage, origin: LogOrigin): NewLogEntry {
  return {
    id: p.id,
    accountId,
    msg: p.msg,
    funding: p.funding,
    origin,
    status: p.msg.scheduleAt !== null ? 'scheduled' : 'queued',
  };
}
