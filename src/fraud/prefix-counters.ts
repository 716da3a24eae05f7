import type { PrefixTally } from './fraud-verdict';
import type { AccountId } from '../common/account-id';

/** A block as the counters mirror it (the fraud_blocks table is the record; see FraudBlocksRepository). */
export interface BlockMark {
  id: string;
  /** Null: the platform (every account). */
  accountId: AccountId | null;
  prefix: string;
  until: number;
}

/**
 * Where codes sent and verified are counted per (account, prefix, minute): the database by default,
 * Redis when REDIS_URL is set. Both hold across replicas. `admit` is one indexed read and one write
 * (database) or one script (Redis: a single round trip).
 */
export interface PrefixCounters {
  /**
   * Counts a code about to be sent and answers the tally before it: the window ending now (`since`:
   * the window's first minute) and the block in force. A code then refused is given back (`uncount`).
   */
  admit(accountId: AccountId, prefix: string, now: number, since: number, newRecipient: boolean): Promise<PrefixTally>;
  uncount(accountId: AccountId, prefix: string, minute: number, newRecipient: boolean): Promise<void>;
  countVerified(accountId: AccountId, prefix: string, minute: number): Promise<void>;
  /** Forgets the account's counts for the prefix (a lifted block judges fresh traffic only). */
  reset(accountId: AccountId, prefix: string): Promise<void>;
  /** A block came into force / ended (the database store reads fraud_blocks itself: nothing to do). */
  markBlocked(mark: BlockMark): Promise<void>;
  unmarkBlocked(mark: BlockMark): Promise<void>;
  /** Deletes counts older than `beforeMinute`; how many rows. */
  prune(beforeMinute: number): Promise<number>;
}

export const PREFIX_COUNTERS = Symbol('PREFIX_COUNTERS');

/** `<accountId>|<prefix>`, or `*|<prefix>` for the platform: the key of the block in force. */
export const activeKey = (accountId: AccountId | null, prefix: string): string => `${accountId ?? '*'}|${prefix}`;
