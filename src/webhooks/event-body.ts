import { isLiveAccount, modeOfAccount, type KeyMode } from '../accounts/account-mode';
import type { AccountId } from '../common/account-id';

/** The header that names the mode of an event (`live` or `test`), on every delivery. */
export const MODE_HEADER = 'webhook-mode';

/**
 * The JSON body of every event the outbox delivers to `accountId` (event endpoints and the spec's own
 * receivers): the event's fields, then `livemode` (false for an account's test mode), then `data`.
 * The body is what the signature covers, so a receiver trusts `livemode` only after verifying it.
 */
export function eventBody(accountId: AccountId, event: { [field: string]: unknown; data?: unknown }): string {
  const { data, ...head } = event;
  return JSON.stringify({ ...head, livemode: isLiveAccount(accountId), data });
}

/** The `webhook-mode` header of a delivery to `accountId`. */
export function modeHeader(accountId: AccountId): Record<typeof MODE_HEADER, KeyMode> {
  return { [MODE_HEADER]: modeOfAccount(accountId) };
}
