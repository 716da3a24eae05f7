import type { FundingSource } from './ledger.service';

/** What an account can spend now: messages from free messages and plan quota, minor units from the wallet. */
export interface SpendableBalance {
  freeMessages: number;
  quotaLeft: number;
  wallet: number;
}

export interface SpentEstimate {
  /** Messages paid from free messages. */
  free: number;
  /** Messages paid from the plan quota. */
  quota: number;
  /** Minor units taken from the wallet. */
  wallet: number;
}

/**
 * Pays messages on paper from a balance snapshot, each as LedgerService.debit / debitMany take it:
 * free messages, then plan quota, then the wallet at the message's price. Nothing is taken.
 */
export class PaymentEstimate {
  private readonly left: SpendableBalance;
  private readonly spent: SpentEstimate = { free: 0, quota: 0, wallet: 0 };

  constructor(balance: SpendableBalance) {
    this.left = { ...balance };
  }

  /** Where one message of this price would be paid from; null (nothing taken) when it cannot be. */
  pay(price: number): FundingSource | null {
    if (this.left.freeMessages > 0) {
      this.left.freeMessages--;
      this.spent.free++;
      return 'free';
    }
    if (this.left.quotaLeft > 0) {
      this.left.quotaLeft--;
      this.spent.quota++;
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
