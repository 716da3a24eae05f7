import { iso } from '../database/columns';
import type { FraudBlockRecord } from './fraud-blocks.repository';

/** A block as the API, the console and the events show it. */
export interface FraudBlockView {
  id: string;
  /** `+`, country calling code and the first national digits (FRAUD_PREFIX_DIGITS). */
  prefix: string;
  scope: 'account' | 'platform';
  reason: FraudBlockRecord['reason'];
  /** Codes sent and verified in the window when the block was raised. */
  sends: number;
  verified: number;
  /** Platform blocks: accounts that had the prefix blocked in the window. */
  accounts: number;
  since: string;
  until: string;
  active: boolean;
  endedAt: string | null;
  endReason: FraudBlockRecord['endReason'];
}

export function blockView(b: FraudBlockRecord, now: number): FraudBlockView {
  return {
    id: b.id,
    prefix: b.prefix,
    scope: b.accountId === null ? 'platform' : 'account',
    reason: b.reason,
    sends: b.sends,
    verified: b.verified,
    accounts: b.accounts,
    since: iso(b.createdAt) as string,
    until: iso(b.endedAt ?? b.until) as string,
    active: b.endedAt === null && b.until > now,
    endedAt: iso(b.endedAt ?? (b.until <= now ? b.until : null)),
    endReason: b.endReason ?? (b.until <= now ? 'expired' : null),
  };
}
