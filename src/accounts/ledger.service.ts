import { Injectable } from '@nestjs/common';
import { sql, Stmt } from '../database/sql';
import { UnitOfWork } from '../database/unit-of-work';
import { AppConfig, ChannelName } from '../config/app-config';
import { ApiError } from '../common/errors';
import { BalanceRow, balancesOf, insufficient, payer, spendableOf, takeFrom } from './account-balance';
import { fund, funding, Funding, FUNDING_ORDER, FundingSource, share } from './funding';
import { KeyCallerCache } from './key-caller-cache';
import { LedgerBatch } from './ledger-batch';
import { PaymentEstimate } from './payment-estimate';

/**
 * The one place that moves money. Every change is a conditional UPDATE whose WHERE clause
 * guarantees the balance stays >= 0, so concurrent sends (any replica, any dialect) can never
 * overdraw. Payments follow FUNDING_ORDER (funding.ts): a single message tries each source with one
 * guarded UPDATE and reads nothing first (one statement when free messages pay, the common case);
 * several messages, of one account or many, are LedgerBatch's (a locking read, then one UPDATE per
 * source), run in a unit of work (the caller's, or its own).
 */
@Injectable()
export class LedgerService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly config: AppConfig,
    private readonly batch: LedgerBatch,
    private readonly callers: KeyCallerCache,
  ) {}

  price(channel: ChannelName): number {
    return this.config.billing.prices[channel];
  }

  /** Can the account pay for one message of `units` billable units now? */
  async canPay(accountId: string, channel: ChannelName, units = 1): Promise<boolean> {
    const b = await this.balance(accountId);
    return b !== null && fund(spendableOf(b), 1, units, units * this.price(channel)).length > 0;
  }

  /** A paper copy of the balance as it is now, for estimating what messages would cost (nothing is taken). */
  async estimate(accountId: string): Promise<PaymentEstimate> {
    const b = await this.balance(accountId);
    if (!b) throw ApiError.notFound('Account');
    const left = spendableOf(b);
    return new PaymentEstimate({ freeMessages: left.free, quotaLeft: left.quota, wallet: left.wallet });
  }

  /**
   * Pays for one message of `units` billable units (each at the channel's price) or throws
   * SUBSCRIPTION_INACTIVE / INSUFFICIENT_BALANCE (nothing taken).
   * Inside a unit of work it is part of it (the pipeline records the message in the same one).
   */
  async debit(accountId: string, channel: ChannelName, units = 1): Promise<Funding> {
    const cost = units * this.price(channel);
    for (const source of FUNDING_ORDER) {
      if ((await this.exec(takeFrom(source, [[accountId, share(source, units, cost)]]), accountId)) === 1)
        return funding(source, units, cost);
    }
    const b = payer(await this.balance(accountId));
    throw b instanceof ApiError ? b : insufficient('this message');
  }

  /**
   * Pays for up to `count` messages of `units` billable units each: LedgerBatch.debitAcross for one
   * account (a batch send).
   * `allOrNothing`: fewer than `count` payable -> 402 thrown and nothing taken.
   * Otherwise returns as many fundings as could be paid (possibly none).
   */
  async debitMany(
    accountId: string,
    channel: ChannelName,
    count: number,
    opts: { allOrNothing: boolean; units?: number },
  ): Promise<Funding[]> {
    const wants = [{ channel, count, units: opts.units ?? 1 }];
    const [paid] = await this.batch.debitAcross([{ accountId, wants }], opts);
    if (paid instanceof ApiError) throw paid;
    return paid[0];
  }

  /**
   * Operator top-up: adds to the wallet in one conditional UPDATE (never a read-then-write, which
   * would undo a debit made in between). False when the account does not exist or the sum would pass
   * the largest safe integer.
   */
  async credit(accountId: string, amount: number): Promise<boolean> {
    const add = sql(
      'UPDATE accounts SET wallet_balance = wallet_balance + ? WHERE id = ? AND wallet_balance <= ?',
      amount,
      accountId,
      Number.MAX_SAFE_INTEGER - amount,
    );
    return (await this.exec(add, accountId)) === 1;
  }

  /** Gives payments back to where they came from, every unit of each (one UPDATE per source). */
  async refundMany(accountId: string, fundings: Funding[]): Promise<void> {
    const units = (source: FundingSource): number =>
      fundings.filter((f) => f.source === source).reduce((s, f) => s + f.units, 0);
    const free = units('free');
    const quota = units('quota');
    const wallet = fundings.filter((f) => f.source === 'wallet').reduce((s, f) => s + f.amount, 0);
    const give = (stmt: Stmt) => this.exec(stmt, accountId);
    if (free) await give(sql('UPDATE accounts SET free_messages = free_messages + ? WHERE id = ?', free, accountId));
    if (quota)
      await give(
        sql(
          'UPDATE accounts SET messages_used = messages_used - ? WHERE id = ? AND messages_used >= ?',
          quota,
          accountId,
          quota,
        ),
      );
    if (wallet)
      await give(sql('UPDATE accounts SET wallet_balance = wallet_balance + ? WHERE id = ?', wallet, accountId));
  }

  // Inside a unit of work the read is part of it (same connection: a second one could exhaust the pool).
  private async balance(accountId: string): Promise<BalanceRow | null> {
    const rows = await this.uow.read(balancesOf([accountId], false));
    return rows[0] ?? null;
  }

  /**
   * Runs a write of the account's row (in the open unit of work, if any) and returns the rows it
   * changed; once it commits, the balances the key lookup remembers (GET /api/v2/account) are stale.
   */
  private async exec(stmt: Stmt, accountId: string): Promise<number> {
    const changed = await this.uow.exec(stmt);
    if (changed) this.uow.afterCommit(() => this.callers.forgetAccount(accountId));
    return changed;
  }
}
