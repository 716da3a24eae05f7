import type { EnvReader } from './env-reader';

/** Verification pumping detection (issue 31): thresholds per account and destination prefix. */
export interface FraudGuardConfig {
  enabled: boolean;
  /** National digits after the country calling code that make a prefix (+966 and 4 digits: +9665012). */
  prefixDigits: number;
  /** The sliding window codes sent and verified are counted over; a block lasts as long. */
  windowMs: number;
  /** A prefix is judged only once it has this many codes sent in the window. */
  minSends: number;
  /** Below this share of codes verified (per mille), the prefix is blocked. */
  minConversionPermille: number;
  /** At most this many codes a minute to numbers new to the account, per prefix. */
  newNumbersPerMinute: number;
  /** A prefix blocked in this many accounts within the window is blocked for every account. */
  platformAccounts: number;
  /** How often expired blocks are closed (their `unblocked` event) and old counters deleted. */
  sweepTickMs: number;
}

export function fraudGuardSection(r: EnvReader): FraudGuardConfig {
  return {
    enabled: r.bool('FRAUD_GUARD_ENABLED', true),
    prefixDigits: r.int('FRAUD_PREFIX_DIGITS', 4, 0, 10),
    windowMs: r.int('FRAUD_WINDOW_SECONDS', 3600, 60, 7 * 86_400) * 1000,
    minSends: r.int('FRAUD_MIN_SENDS', 20, 1, 1_000_000),
    minConversionPermille: Math.round(r.int('FRAUD_MIN_CONVERSION_PERCENT', 10, 0, 100) * 10),
    newNumbersPerMinute: r.int('FRAUD_NEW_NUMBERS_PER_MINUTE', 30, 1, 1_000_000),
    platformAccounts: r.int('FRAUD_PLATFORM_ACCOUNTS', 3, 2, 1_000_000),
    sweepTickMs: r.int('FRAUD_SWEEP_TICK_MS', 60_000, 1000, 3_600_000),
  };
}
