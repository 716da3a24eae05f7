import { createHmac, randomBytes } from 'node:crypto';

/** Standard Webhooks secrets: `whsec_` + base64 of 32 random bytes; the key is the decoded bytes. */
export const SECRET_PREFIX = 'whsec_';

export function generateEndpointSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The HMAC key of a `whsec_` secret: its base64 part, decoded. */
export function endpointKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/** The key of a spec-event receiver's secret (a bearer token or sender secret): its bytes as they are. */
export function rawKey(secret: string): Buffer {
  return Buffer.from(secret, 'utf8');
}

/**
 * The three Standard Webhooks headers for one attempt: `webhook-signature` holds one `v1,<base64>`
 * per key (space-separated; two while a rotated secret still signs).
 */
export function signatureHeaders(
  webhookId: string,
  timestampS: number,
  body: string,
  keys: readonly Buffer[],
): Record<string, string> {
  const content = `${webhookId}.${timestampS}.${body}`;
  const signature = keys.map((k) => `v1,${createHmac('sha256', k).update(content).digest('base64')}`).join(' ');
  return { 'webhook-id': webhookId, 'webhook-timestamp': String(timestampS), 'webhook-signature': signature };
}
