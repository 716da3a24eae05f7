import type { FraudConfig } from '../config/fraud.config';

/** What the counters say of one (account, prefix) now: read in one round trip. */
export interface PrefixTally {
  /** Codes sent in the window (since the last lift). */
  sends: number;
  /** Of those, codes verified. */
  verified: number;
  /** Codes sent this minute to numbers new to the account. */
  newThisMinute: number;
  /** The block in force for the account or the whole platform, if any. */
  block: { id: string; until: number } | null;
}

export type FraudReason = 'low_conversion' | 'velocity';

export type Verdict = { kind: 'allow' } | { kind: 'blocked'; until: number } | { kind: 'block'; reason: FraudReason };

/**
 * The one rule: a block in force refuses; a prefix with at least `minSends` codes in the window and
 * fewer than `minConversionPermille` of them verified is blocked; a code to a new number past
 * `newNumbersPerMinute` this minute is blocked (a burst before any conversion data exists).
 */
export function judge(
  t: PrefixTally,
  newRecipient: boolean,
  c: Pick<FraudConfig, 'minSends' | 'minConversionPermille' | 'newNumbersPerMinute'>,
): Verdict {
  if (t.block) return { kind: 'blocked', until: t.block.until };
  if (t.sends >= c.minSends && t.verified * 1000 < c.minConversionPermille * t.sends) {
    return { kind: 'block', reason: 'low_conversion' };
  }
  if (newRecipient && t.newThisMinute >= c.newNumbersPerMinute) return { kind: 'block', reason: 'velocity' };
  return { kind: 'allow' };
}
