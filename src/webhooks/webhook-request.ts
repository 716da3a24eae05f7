import { SecretBox } from '../common/secret-box';
import { modeHeader } from './event-body';
import type { EndpointKeys } from './event-endpoints.repository';
import { endpointKey, rawKey, signatureHeaders } from './standard-webhooks';
import type { ClaimedDelivery } from './webhook-outbox.repository';

const USER_AGENT = 'messaging-service-webhooks/1';

/** An event endpoint's HMAC keys (the previous secret's too while it overlaps), or why nothing is sent to it. */
export type EndpointSigning = { keys: Buffer[] } | { refused: string };

/** Opens an endpoint's secrets once per claimed batch (not once per delivery). */
export function endpointSigning(endpoint: EndpointKeys | undefined, box: SecretBox, nowMs: number): EndpointSigning {
  if (!endpoint) return { refused: 'endpoint deleted' };
  if (endpoint.status !== 'enabled') return { refused: 'endpoint disabled' };
  const keys = [endpointKey(box.open(endpoint.sealedSecret))];
  if (endpoint.previousSealedSecret && (endpoint.previousSecretExpiresAt ?? 0) > nowMs)
    keys.push(endpointKey(box.open(endpoint.previousSealedSecret)));
  return { keys };
}

/**
 * The headers of one attempt. Event endpoint deliveries: Standard Webhooks only, signed with the
 * endpoint's secret (and the previous one while it overlaps). The spec's own events keep their
 * headers and also carry the Standard Webhooks ones, keyed with the bytes of the secret the receiver
 * holds. Every attempt says its account's mode in `webhook-mode` (`live` or `test`). When the
 * endpoint is gone or disabled, the reason instead (nothing is sent).
 */
export function attemptHeaders(
  row: ClaimedDelivery,
  signing: EndpointSigning | undefined,
  box: SecretBox,
  nowMs: number,
): { headers: Record<string, string> } | { refused: string } {
  const ts = Math.floor(nowMs / 1000);
  if (row.endpointId) {
    if (!signing) return { refused: 'endpoint deleted' };
    if ('refused' in signing) return signing;
    return {
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': USER_AGENT,
        ...modeHeader(row.accountId),
        ...signatureHeaders(row.webhookId, ts, row.body, signing.keys),
      },
    };
  }
  const secret = box.open(row.sealedSecret);
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Authorization: `Bearer ${secret}`,
    'X-Service-Event': row.event,
    'X-Service-Delivery-Id': row.id,
    'User-Agent': USER_AGENT,
    ...modeHeader(row.accountId),
    ...signatureHeaders(row.webhookId, ts, row.body, [rawKey(secret)]),
  };
  if (row.apiKeyHeader) headers['X-API-Key'] = secret;
  return { headers };
}
