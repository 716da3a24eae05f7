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
  return { defaultAllowedCountries: list ?? ['SA'] };
}
