/** Where one message's payment came from. Free messages and plan quota count billable units, the wallet money. */
export type FundingSource = 'free' | 'quota' | 'wallet';

export interface Funding {
  source: FundingSource;
  /** Minor units taken from the wallet (0 when free messages or plan quota paid). */
  amount: number;
  /** Billable units the message took (an SMS: its parts; every other message: 1), all from `source`. */
  units: number;
}
