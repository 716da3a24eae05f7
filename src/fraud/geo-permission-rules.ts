import { isCountryCode, type CountryAllowList } from '../config/app-config';
import { ApiError } from '../common/errors';

// Pure list rules of geo permissions: how a list is stored, shown, read from a request and compared.

/** Stored form: `*`, '' (none) or `AE,SA`. */
export function encodeList(list: CountryAllowList): string {
  return list === '*' ? '*' : list.join(',');
}

export function decodeList(stored: string): CountryAllowList {
  if (stored === '*') return '*';
  return stored === '' ? [] : stored.split(',');
}

/** API form: `['*']` for every country, else the codes. */
export function showList(list: CountryAllowList): string[] {
  return list === '*' ? ['*'] : [...list];
}

/** A request's list: `['*']` alone, or country codes (any case); sorted, each once. Throws VALIDATION_ERROR naming `field`. */
export function readList(field: string, codes: readonly string[]): CountryAllowList {
  const upper = codes.map((c) => c.trim().toUpperCase());
  if (upper.includes('*')) {
    if (upper.length !== 1) throw ApiError.validation(`${field}: "*" (every country) must be the only entry`);
    return '*';
  }
  const bad = upper.filter((c) => !isCountryCode(c));
  if (bad.length)
    throw ApiError.validation(
      `${field}: ${bad.slice(0, 10).join(', ')} ${bad.length === 1 ? 'is not an' : 'are not'} ISO 3166-1 country code${bad.length === 1 ? '' : 's'}`,
    );
  return [...new Set(upper)].sort();
}

/** What `list` names outside `ceiling` (`['*']` when it asks for every country under a finite ceiling). */
export function outside(list: CountryAllowList, ceiling: CountryAllowList): string[] {
  if (ceiling === '*') return [];
  if (list === '*') return ['*'];
  return list.filter((c) => !ceiling.includes(c));
}

export function intersect(list: CountryAllowList, ceiling: CountryAllowList): CountryAllowList {
  if (ceiling === '*') return list;
  if (list === '*') return ceiling;
  return list.filter((c) => ceiling.includes(c));
}
