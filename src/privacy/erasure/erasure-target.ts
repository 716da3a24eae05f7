import { ApiError } from '../../common/errors';
import { normaliseEmail, parsePhone } from '../../messaging/validation/recipient-rules';

/**
 * The recipient as the validator normalises `to` (E.164 in the default region, or a lower-case
 * email), then the other forms it may be stored under: a number without its `+` (inbound SMS as an
 * SMSC gives it, bulk rows as a request wrote them), and the input as the caller wrote it.
 */
export function erasureForms(raw: string, defaultRegion: string): string[] {
  const input = raw.trim();
  let normalised: string | null;
  if (input.includes('@')) normalised = normaliseEmail(input);
  else normalised = parsePhone(input, defaultRegion)?.e164 ?? null;
  if (normalised === null)
    throw new ApiError('INVALID_RECIPIENT', 'recipient must be a phone number or an email address');
  const forms = [normalised];
  if (normalised.startsWith('+')) forms.push(normalised.slice(1));
  if (!forms.includes(input)) forms.push(input);
  return forms;
}
