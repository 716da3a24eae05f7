import type { FundingSource } from './funding';

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
 * Pays messages on paper from a balance snapshot, each as LedgerService.debit / debitMany take it:
 * free messages, then plan quota, then the wallet at the message's price; a message of several units
 * whole from the first source that covers them all. Nothing is taken.
 */
export class PaymentEstimate {
  private readonly left: SpendableBalance;
  private readonly spent: SpentEstimate = { free: 0, quota: 0, wallet: 0 };

  constructor(balance: SpendableBalance) {
    this.left = { ...balance };
  }

  /** Where one message of `units` billable units costing `price` in all would be paid from; null (nothing taken) when it cannot be. */
  pay(price: number, units = 1): FundingSource | null {
    if (this.left.freeMessages >= units) {
      this.left.freeMessages -= units;
      this.spent.free += units;
      return 'free';
    }
    if (this.left.quotaLeft >= units) {
      this.left.quotaLeft -= units;
      this.spent.quota += units;
      return 'quota';
    }
    if (this.left.wallet >= price) {
      this.left.wallet -= price;
      this.spent.wallet += price;
      return 'wallet';
    }
    return null;
  }

  result(): SpentEstimate {
    return { ...this.spent };
  }
}
