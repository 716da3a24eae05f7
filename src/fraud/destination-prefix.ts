import { parsePhoneNumberFromString } from 'libphonenumber-js';

/**
 * The destination prefix a code is counted under: `+`, the country calling code and the first
 * `digits` national digits (+966 501234567 with 4 -> `+9665012`). Null for what is not a phone
 * number (an email address): pumping is a premium-rate phone fraud.
 */
export function destinationPrefix(recipient: string, digits: number): string | null {
  if (!recipient.startsWith('+')) return null;
  const parsed = parsePhoneNumberFromString(recipient);
  if (!parsed) return null;
  return `+${parsed.countryCallingCode}${parsed.nationalNumber.slice(0, digits)}`;
}

/** The minute (since the epoch) a time falls in: the counters' bucket. */
export const minuteOf = (ms: number): number => Math.floor(ms / 60_000);
