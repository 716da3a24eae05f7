import { Injectable } from '@nestjs/common';
import { AppConfig, ChannelName } from '../config/app-config';
import { ApiError } from '../common/errors';
import { UnitOfWork } from '../database/unit-of-work';
import { balancesOf, insufficient, payer, spendableOf, takeFrom } from './account-balance';
import { fund, Funding, FUNDING_ORDER, FundingSource, Spendable } from './funding';
import { KeyCallerCache } from './key-caller-cache';

/** Messages of one channel and number of billable units an account wants paid, in order. */
export interface PaymentWant {
  channel: ChannelName;
  units: number;
  count: number;
}

/** One account's payment of a batch: its wants, in the order they are to be paid. */
export interface AccountPayment {
  accountId: string;
  wants: PaymentWant[];
}

/** Per want, the fundings it got; or why nothing was taken for the payment. */
export type AccountDebit = Funding[][] | ApiError;

/**
 * An UPDATE changed fewer accounts than planned (a balance moved after the locking read, which
 * should not happen): the unit is undone. `accountIds`: the accounts that UPDATE took from.
 */
export class LedgerBatchConflict extends Error {
  constructor(
    readonly accountIds: string[],
    reason: string,
  ) {
    super(reason);
  }
}

/**
 * The ledger's one debit of many messages, for one account or many (bulk windows of many jobs, a
 * batch send, LedgerService.debitMany): one locking read of the balances, then at most one guarded
 * UPDATE per source (free messages, plan quota, wallet) taking every account's share. Each payment
 * is paid from the balance as read, lowered by the payments before it, in FUNDING_ORDER (`fund`).
 */
@Injectable()
export class LedgerBatch {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly config: AppConfig,
    private readonly callers: KeyCallerCache,
  ) {}

  /**
   * Per payment, per want, the fundings it got: in order, as many as the balance covers. A payment
   * of an unknown account or an inactive subscription gets the single debit's error instead, and
   * nothing is taken for it; so does one that `allOrNothing` cannot pay in full (INSUFFICIENT_BALANCE).
   * Joins an open unit of work (one of its own otherwise).
   */
  async debitAcross(payments: AccountPayment[], opts: { allOrNothing?: boolean } = {}): Promise<AccountDebit[]> {
    return this.uow.transaction(async () => {
      const ids = [...new Set(payments.map((p) => p.accountId))];
      const rows = await this.uow.read(balancesOf(ids, this.uow.capabilities.rowLocks));
      const read = new Map(rows.map((r) => [r.id, r]));
      const left = new Map<string, Spendable>();
      const taken = new Map<string, Spendable>();
      const out = payments.map((p): AccountDebit => {
        const b = payer(read.get(p.accountId));
        if (b instanceof ApiError) return b;
        const before = left.get(p.accountId) ?? spendableOf(b);
        const after = { ...before };
        const got = p.wants.map((w) => fund(after, w.count, w.units, w.units * this.price(w.channel)));
        const short = p.wants.find((w, i) => got[i].length < w.count);
        if (opts.allOrNothing && short) return insufficient(`${short.count} message(s) on ${short.channel}`);
        left.set(p.accountId, after);
        const t = taken.get(p.accountId) ?? { free: 0, quota: 0, wallet: 0 };
        for (const s of FUNDING_ORDER) t[s] += before[s] - after[s];
        taken.set(p.accountId, t);
        return got;
      });
      for (const source of FUNDING_ORDER) await this.take(source, taken);
      return out;
    });
  }

  private price(channel: ChannelName): number {
    return this.config.billing.prices[channel];
  }

  /** One guarded UPDATE of one source for every account that takes from it. */
  private async take(source: FundingSource, taken: Map<string, Spendable>): Promise<void> {
    const shares = [...taken].filter(([, t]) => t[source] > 0).map(([id, t]): [string, number] => [id, t[source]]);
    if (!shares.length) return;
    const changed = await this.uow.exec(takeFrom(source, shares));
    // The balances the key lookup remembers (GET /api/v2/account) are stale once this commits.
    this.uow.afterCommit(() => shares.forEach(([id]) => this.callers.forgetAccount(id)));
    if (changed !== shares.length)
      throw new LedgerBatchConflict(
        shares.map(([id]) => id),
        `${source}: ${changed} of ${shares.length} accounts debited`,
      );
  }
}
