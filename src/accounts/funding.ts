/** Where one message's payment came from. Free messages and plan quota count billable units, the wallet money. */
export type FundingSource = 'free' | 'quota' | 'wallet';

export interface Funding {
  source: FundingSource;
  /** Minor units taken from the wallet (0 when free messages or plan quota paid). */
  amount: number;
  /** Billable units the message took (an SMS: its parts; every other message: 1), all from `source`. */
  units: number;
}

/**
 * The order of payment, written once: free messages, then plan quota, then the wallet. A message of
 * several billable units (a multi-part SMS) is paid whole from the first source that covers all its
 * units: one message, one source, so a refund gives every unit back where it came from.
 */
export const FUNDING_ORDER: readonly FundingSource[] = ['free', 'quota', 'wallet'];

/** What an account can spend now: billable units of free messages and of plan quota left, minor units of the wallet. */
export type Spendable = Record<FundingSource, number>;

/** What paying one message of `units` billable units costing `cost` minor units takes from `source`. */
export function share(source: FundingSource, units: number, cost: number): number {
  return source === 'wallet' ? cost : units;
}

export function funding(source: FundingSource, units: number, cost: number): Funding {
  return { source, amount: source === 'wallet' ? cost : 0, units };
}

/**
 * Pays, in FUNDING_ORDER, up to `count` messages of `units` billable units costing `cost` minor units
 * each from the wallet, as many as `left` covers, and lowers `left` by what they took. Every payment
 * and estimate of a payment is worked out here (the single debit, which reads nothing first, tries
 * the sources in the same order with one guarded UPDATE each).
 */
export function fund(left: Spendable, count: number, units: number, cost: number): Funding[] {
  const got: Funding[] = [];
  for (const source of FUNDING_ORDER) {
    const each = share(source, units, cost);
    const missing = count - got.length;
    const n = each > 0 ? Math.min(missing, Math.floor(left[source] / each)) : missing;
    if (n <= 0) continue;
    left[source] -= n * each;
    for (let i = 0; i < n; i++) got.push(funding(source, units, cost));
  }
  return got;
}
