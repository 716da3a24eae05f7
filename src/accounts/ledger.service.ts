import { Injectable } from '@nestjs/common';
import { SqlParam } from '../database/sql';
import { UnitOfWork } from '../database/unit-of-work';
import { AppConfig, ChannelName } from '../config/app-config';
import { ApiError } from '../common/errors';
import type { Funding, FundingSource } from './funding';
import { PaymentEstimate } from './payment-estimate';

/** The columns of a BalanceRow. */
export const BALANCE_COLUMNS = 'free_messages, message_quota, messages_used, wallet_balance, subscription_active';

export interface BalanceRow {
  free_messages: number | string;
  message_quota: number | string;
  messages_used: number | string;
  wallet_balance: number | string;
  subscription_active: number | string | boolean;
}

/**
 * The one place that moves money. Every change is a single conditional UPDATE whose WHERE clause
 * guarantees the balance stays >= 0, so concurrent sends (any replica, any dialect) can never
 * overdraw: the database decides who wins, no read-modify-write. Only debitMany, which may need up
 * to three UPDATEs, runs them in a transaction (the caller's, or its own).
 * Order of payment: free messages, then plan quota (messageQuota - messagesUsed), then wallet.
 * A message of several billable units (a multi-part SMS) is paid whole from the first source that
 * covers all its units: one message, one source, so a refund gives every unit back where it came from.
 */
@Injectable()
export class LedgerService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly config: AppConfig,
  ) {}

  price(channel: ChannelName): number {
    return this.config.billing.prices[channel];
  }

  /** Can the account pay for one message of `units` billable units now? */
  async canPay(accountId: string, channel: ChannelName, units = 1): Promise<boolean> {
    const b = await this.balance(accountId);
    return b !== null && this.payable(b, this.price(channel), units) > 0;
  }

  /** A paper copy of the balance as it is now, for estimating what messages would cost (nothing is taken). */
  async estimate(accountId: string): Promise<PaymentEstimate> {
    const b = await this.balance(accountId);
    if (!b) throw ApiError.notFound('Account');
    return new PaymentEstimate({
      freeMessages: Number(b.free_messages),
      quotaLeft: availableFrom(b, 'quota', 0),
      wallet: Number(b.wallet_balance),
    });
  }

  /**
   * Pays for one message of `units` billable units (each at the channel's price) or throws
   * SUBSCRIPTION_INACTIVE / INSUFFICIENT_BALANCE (nothing taken).
   * Inside a unit of work it is part of it (the pipeline records the message in the same one).
   */
  async debit(accountId: string, channel: ChannelName, units = 1): Promise<Funding> {
    const price = this.price(channel);
    for (const source of ['free', 'quota', 'wallet'] as FundingSource[]) {
      if (await this.take(accountId, source, units, price)) return funding(source, units, price);
    }
    throw await this.refusal(accountId);
  }

  /**
   * Pays for up to `count` messages of `units` billable units each with at most three UPDATEs (bulk
   * dispatch, batch sends).
   * `allOrNothing`: fewer than `count` payable -> everything taken is given back and 402 thrown.
   * Otherwise returns as many fundings as could be paid (possibly none).
   * One unit of work (the caller's, when one is open), so a database error after the first UPDATE
   * leaves nothing taken.
   */
  async debitMany(
    accountId: string,
    channel: ChannelName,
    count: number,
    opts: { allOrNothing: boolean; units?: number },
  ): Promise<Funding[]> {
    return this.uow.transaction(() =>
      this.debitManyInUnit(accountId, channel, count, opts.allOrNothing, opts.units ?? 1),
    );
  }

  private async debitManyInUnit(
    accountId: string,
    channel: ChannelName,
    count: number,
    allOrNothing: boolean,
    units: number,
  ): Promise<Funding[]> {
    const price = this.price(channel);
    const out: Funding[] = [];
    const first = await this.balance(accountId);
    if (!first) throw ApiError.notFound('Account');
    if (!truthy(first.subscription_active))
      throw new ApiError('SUBSCRIPTION_INACTIVE', 'The account subscription is inactive');
    if (allOrNothing && this.payable(first, price, units) < count) throw this.short(channel, count);
    let b: BalanceRow | null = first;
    for (const source of ['free', 'quota', 'wallet'] as FundingSource[]) {
      // Retry a few times: a concurrent debit may change the balance between our read and UPDATE.
      for (let attempt = 0; attempt < 5 && out.length < count && b; attempt++) {
        const missing = count - out.length;
        const available = messagesFrom(b, source, price, units);
        // The wallet is the last source: in all-or-nothing mode take everything still missing or
        // nothing, so a batch that cannot be paid never holds money a concurrent one needed.
        const n = allOrNothing && source === 'wallet' ? missing : Math.min(missing, available);
        if (n <= 0 || available < n) break;
        if (await this.take(accountId, source, n * units, price)) {
          for (let i = 0; i < n; i++) out.push(funding(source, units, price));
          break;
        }
        b = await this.balance(accountId);
      }
    }
    if (allOrNothing && out.length < count) {
      await this.refundMany(accountId, out);
      throw this.short(channel, count);
    }
    return out;
  }

  private short(channel: ChannelName, count: number): ApiError {
    return new ApiError(
      'INSUFFICIENT_BALANCE',
      `Free messages, plan quota and wallet balance cannot pay for ${count} message(s) on ${channel}`,
    );
  }

  /**
   * Operator top-up: adds to the wallet in one conditional UPDATE (never a read-then-write, which
   * would undo a debit made in between). False when the account does not exist or the sum would pass
   * the largest safe integer.
   */
  async credit(accountId: string, amount: number): Promise<boolean> {
    return (
      (await this.exec('UPDATE accounts SET wallet_balance = wallet_balance + ? WHERE id = ? AND wallet_balance <= ?', [
        amount,
        accountId,
        Number.MAX_SAFE_INTEGER - amount,
      ])) === 1
    );
  }

  /** Gives payments back to where they came from, every unit of each (one UPDATE per source). */
  async refundMany(accountId: string, fundings: Funding[]): Promise<void> {
    const units = (source: FundingSource): number =>
      fundings.filter((f) => f.source === source).reduce((s, f) => s + f.units, 0);
    const free = units('free');
    const quota = units('quota');
    const wallet = fundings.filter((f) => f.source === 'wallet').reduce((s, f) => s + f.amount, 0);
    if (free) await this.exec('UPDATE accounts SET free_messages = free_messages + ? WHERE id = ?', [free, accountId]);
    if (quota)
      await this.exec('UPDATE accounts SET messages_used = messages_used - ? WHERE id = ? AND messages_used >= ?', [
        quota,
        accountId,
        quota,
      ]);
    if (wallet)
      await this.exec('UPDATE accounts SET wallet_balance = wallet_balance + ? WHERE id = ?', [wallet, accountId]);
  }

  /** Takes `n` billable units from one source in one conditional UPDATE. */
  private async take(accountId: string, source: FundingSource, n: number, price: number): Promise<boolean> {
    const active = 'AND subscription_active = ?';
    switch (source) {
      case 'free':
        return (
          (await this.exec(
            `UPDATE accounts SET free_messages = free_messages - ? WHERE id = ? AND free_messages >= ? ${active}`,
            [n, accountId, n, 1],
          )) === 1
        );
      case 'quota':
        return (
          (await this.exec(
            `UPDATE accounts SET messages_used = messages_used + ? WHERE id = ? AND messages_used + ? <= message_quota ${active}`,
            [n, accountId, n, 1],
          )) === 1
        );
      case 'wallet':
        return (
          (await this.exec(
            `UPDATE accounts SET wallet_balance = wallet_balance - ? WHERE id = ? AND wallet_balance >= ? ${active}`,
            [n * price, accountId, n * price, 1],
          )) === 1
        );
    }
  }

  private async refusal(accountId: string): Promise<ApiError> {
    const b = await this.balance(accountId);
    if (!b) return ApiError.notFound('Account');
    if (!truthy(b.subscription_active))
      return new ApiError('SUBSCRIPTION_INACTIVE', 'The account subscription is inactive');
    return new ApiError(
      'INSUFFICIENT_BALANCE',
      'Free messages, plan quota and wallet balance cannot pay for this message',
    );
  }

  private payable(b: BalanceRow, price: number, units = 1): number {
    return (['free', 'quota', 'wallet'] as FundingSource[]).reduce(
      (s, src) => s + messagesFrom(b, src, price, units),
      0,
    );
  }

  // Inside a unit of work the read is part of it (same connection: a second one could exhaust the pool).
  private async balance(accountId: string): Promise<BalanceRow | null> {
    const rows = await this.uow.rows<BalanceRow>({
      sql: `SELECT ${BALANCE_COLUMNS} FROM accounts WHERE id = ?`,
      params: [accountId],
    });
    return rows[0] ?? null;
  }

  /** Runs a write (in the open unit of work, if any) and returns the rows it changed. */
  private async exec(sql: string, params: SqlParam[]): Promise<number> {
    return this.uow.exec({ sql, params });
  }
}

export function funding(source: FundingSource, units: number, price: number): Funding {
  return { source, amount: source === 'wallet' ? units * price : 0, units };
}

export function truthy(v: number | string | boolean): boolean {
  return v === true || Number(v) === 1;
}

/** What one source holds: free messages and plan quota in billable units, the wallet in messages of `price`. */
export function availableFrom(b: BalanceRow, source: FundingSource, price: number): number {
  if (source === 'free') return Number(b.free_messages);
  if (source === 'quota') return Math.max(0, Number(b.message_quota) - Number(b.messages_used));
  return price > 0 ? Math.floor(Number(b.wallet_balance) / price) : Number.MAX_SAFE_INTEGER;
}

/** Messages of `units` units one source can pay whole. */
export function messagesFrom(b: BalanceRow, source: FundingSource, price: number, units: number): number {
  return Math.floor(availableFrom(b, source, price) / units);
}
