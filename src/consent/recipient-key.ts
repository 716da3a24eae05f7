import { ApiError } from '../common/errors';
import { normaliseEmail, parsePhone, phoneOfChatId } from '../messaging/validation/recipient-rules';

/**
 * A suppression's recipient normalised like a message's `to`: E.164 for a phone number (national
 * numbers read in `region`), lower-case for an email address. Null when it is neither.
 */
export function normaliseRecipient(raw: string, region: string): string | null {
  const v = raw.trim();
  if (v.includes('@')) return normaliseEmail(v);
  return parsePhone(v, region)?.e164 ?? null;
}

/** As normaliseRecipient, or 400 VALIDATION_ERROR naming `field`. */
export function requireRecipient(raw: string, region: string, field = 'recipient'): string {
  const r = normaliseRecipient(raw, region);
  if (r === null) throw new ApiError('VALIDATION_ERROR', `${field} must be a phone number (E.164) or an email address`);
  return r;
}

/**
 * The recipient a policy looks up for a validated `to`: a web-session chat id of a phone becomes
 * that phone's E.164 (an opt-out names the person, whichever channel reached them); anything else
 * is used as it is.
 */
export function policyRecipient(to: string): string {
  return phoneOfChatId(to)?.e164 ?? to;
}
