import { fund, share, type FundingSource, type Spendable } from './funding';

/** What an account can spend now: messages from free messages and plan quota, minor units from the wallet. */
export interface SpendableBalance {
  freeMessages: number;
  quotaLeft: number;
  wallet: number;
}

export interface SpentEstimate {
  /** Billable units (SMS parts; one per other message) paid from free messages. */
  free: number;
  /** Billable units paid from the plan quota. */
  quota: number;
  /** Minor units taken from the wallet. */
  wallet: number;
}

/**
 * Pays messages on paper from a balance snapshot, each as the ledger takes it (`fund`, in
 * FUNDING_ORDER). Nothing is taken.
 */
export class PaymentEstimate {
  private readonly left: Spendable;
  private readonly spent: SpentEstimate = { free: 0, quota: 0, wallet: 0 };

  constructor(balance: SpendableBalance) {
    this.left = { free: balance.freeMessages, quota: balance.quotaLeft, wallet: balance.wallet };
  }

  /** Where one message of `units` billable units costing `price` in all would be paid from; null (nothing taken) when it cannot be. */
  pay(price: number, units = 1): FundingSource | null {
    const [paid] = fund(this.left, 1, units, price);
    if (!paid) return null;
    this.spent[paid.source] += share(paid.source, units, price);
    return paid.source;
  }

  result(): SpentEstimate {
    return { ...this.spent };
  }
}
