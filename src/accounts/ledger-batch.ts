import { Injectable } from '@nestjs/common';
import { AppConfig, ChannelName } from '../config/app-config';
import { caseOf, inList, SqlParam } from '../database/sql';
import { UnitOfWork } from '../database/unit-of-work';
import type { Funding, FundingSource } from './funding';
import { BALANCE_COLUMNS, BalanceRow, funding, messagesFrom, truthy } from './ledger.service';

/** Messages of one channel and number of billable units an account wants paid, in order. */
export interface PaymentWant {
  channel: ChannelName;
  units: number;
  count: number;
}

/** One account's windows of a batch: its wants, in the order they are to be paid. */
export interface AccountPayment {
  accountId: string;
  wants: PaymentWant[];
}

/** The batch took a different amount than it read (a concurrent payment): the whole unit is undone. */
export class LedgerBatchConflict extends Error {}

const SOURCES: readonly FundingSource[] = ['free', 'quota', 'wallet'];

/**
 * Debits for many accounts' bulk windows in one unit: one read of their balances, then at most
 * three UPDATEs (free messages, plan quota, wallet), each taking every account's share with the
 * same guard as a single debit (`free_messages >= taken` ...), so no balance can go below zero
 * whatever runs concurrently. If a guard refused a row (a concurrent payment changed a balance
 * after the read), the UPDATE changed fewer rows than planned and LedgerBatchConflict undoes the
 * caller's unit. Each want is paid as LedgerService.debitMany pays it (allOrNothing false): in
 * order, as many as the balance covers, each message whole from free, then quota, then wallet.
 */
@Injectable()
export class LedgerBatch {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly config: AppConfig,
  ) {}

  /**
   * Per payment, per want, the fundings it got (possibly fewer than asked); null for an account
   * that is unknown or whose subscription is inactive (nothing taken: its caller pays alone and
   * gets the single debit's error). Must run inside the caller's unit of work.
   */
  async debitAcross(payments: AccountPayment[]): Promise<(Funding[][] | null)[]> {
    const ids = [...new Set(payments.map((p) => p.accountId))];
    const rows = await this.uow.rows<BalanceRow & { id: string }>({
      sql: `SELECT id, ${BALANCE_COLUMNS} FROM accounts WHERE id IN (${inList(ids.length)})`,
      params: ids,
    });
    const balances = new Map(rows.map((r) => [String(r.id), { ...r }]));
    const taken = new Map<string, Record<FundingSource, number>>();
    const out = payments.map((p) => {
      const b = balances.get(p.accountId);
      if (!b || !truthy(b.subscription_active)) return null;
      let t = taken.get(p.accountId);
      if (!t) taken.set(p.accountId, (t = { free: 0, quota: 0, wallet: 0 }));
      return p.wants.map((w) => this.pay(b, t, w));
    });
    for (const source of SOURCES) await this.take(source, taken);
    return out;
  }

  /** One want from the balance as read (lowered as it pays), noting what each source gave. */
  private pay(b: BalanceRow, t: Record<FundingSource, number>, w: PaymentWant): Funding[] {
    const price = this.config.billing.prices[w.channel];
    const got: Funding[] = [];
    for (const source of SOURCES) {
      const n = Math.min(w.count - got.length, messagesFrom(b, source, price, w.units));
      if (n <= 0) continue;
      const amount = source === 'wallet' ? n * w.units * price : n * w.units;
      t[source] += amount;
      if (source === 'free') b.free_messages = Number(b.free_messages) - amount;
      else if (source === 'quota') b.messages_used = Number(b.messages_used) + amount;
      else b.wallet_balance = Number(b.wallet_balance) - amount;
      for (let i = 0; i < n; i++) got.push(funding(source, w.units, price));
    }
    return got;
  }

  /** One guarded UPDATE of one source for every account that takes from it. */
  private async take(source: FundingSource, taken: Map<string, Record<FundingSource, number>>): Promise<void> {
    const pairs: [SqlParam, SqlParam][] = [...taken].filter(([, t]) => t[source] > 0).map(([id, t]) => [id, t[source]]);
    if (!pairs.length) return;
    const amount = caseOf('id', pairs);
    const col = source === 'free' ? 'free_messages' : source === 'quota' ? 'messages_used' : 'wallet_balance';
    const set = source === 'quota' ? `${col} = ${col} + ${amount.sql}` : `${col} = ${col} - ${amount.sql}`;
    const guard = source === 'quota' ? `${col} + ${amount.sql} <= message_quota` : `${col} >= ${amount.sql}`;
    const ids = pairs.map(([id]) => id);
    const changed = await this.uow.exec({
      sql: `UPDATE accounts SET ${set} WHERE id IN (${inList(ids.length)}) AND subscription_active = ? AND ${guard}`,
      params: [...amount.params, ...ids, 1, ...amount.params],
    });
    if (changed !== pairs.length)
      throw new LedgerBatchConflict(`${source}: ${changed} of ${pairs.length} accounts debited`);
  }
}
