import { isSupportedCountry } from 'libphonenumber-js';
import type { EnvReader } from './env-reader';

/**
 * Destination countries: `'*'` (every country) or ISO 3166-1 alpha-2 codes, upper case, sorted, each
 * once. Only countries with phone numbering metadata count (a recipient's country is read from its number).
 */
export type CountryAllowList = '*' | readonly string[];

export interface FraudConfig {
  /** Where an account has no geo permissions of its own: every phone channel, and the owner's ceiling. */
  defaultAllowedCountries: CountryAllowList;
  // Verification pumping detection: thresholds per account and destination prefix.
  /** FRAUD_GUARD_ENABLED: the pumping detection (geo permissions always apply). */
  guardEnabled: boolean;
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

/** `"SA, ae"` -> `['AE', 'SA']`; `"*"` -> `'*'`; null when a code is not a country with phone numbers. */
export function parseCountryList(raw: string): CountryAllowList | null {
  const parts = raw
    .split(',')
    .map((p) => p.trim().toUpperCase())
    .filter((p) => p !== '');
  if (parts.length === 1 && parts[0] === '*') return '*';
  if (parts.length === 0 || parts.some((p) => !isCountryCode(p))) return null;
  return [...new Set(parts)].sort();
}

/** Two upper-case letters naming a country libphonenumber knows the numbering of. */
export function isCountryCode(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && isSupportedCountry(code);
}

export function fraudSection(r: EnvReader): FraudConfig {
  const raw = r.string('DEFAULT_ALLOWED_COUNTRIES', 'SA');
  const list = parseCountryList(raw);
  if (list === null)
    r.fail(
      `DEFAULT_ALLOWED_COUNTRIES must be "*" or comma-separated two-letter ISO 3166-1 country codes (e.g. SA,AE), got "${raw}"`,
    );
  return {
    defaultAllowedCountries: list ?? ['SA'],
    guardEnabled: r.bool('FRAUD_GUARD_ENABLED', true),
    prefixDigits: r.int('FRAUD_PREFIX_DIGITS', 4, 0, 10),
    windowMs: r.int('FRAUD_WINDOW_SECONDS', 3600, 60, 7 * 86_400) * 1000,
    minSends: r.int('FRAUD_MIN_SENDS', 20, 1, 1_000_000),
    minConversionPermille: r.int('FRAUD_MIN_CONVERSION_PERCENT', 10, 0, 100) * 10,
    newNumbersPerMinute: r.int('FRAUD_NEW_NUMBERS_PER_MINUTE', 30, 1, 1_000_000),
    platformAccounts: r.int('FRAUD_PLATFORM_ACCOUNTS', 3, 2, 1_000_000),
    sweepTickMs: r.int('FRAUD_SWEEP_TICK_MS', 60_000, 1000, 3_600_000),
  };
}
