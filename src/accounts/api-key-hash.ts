import { createHash, randomBytes } from 'node:crypto';

const API_KEY_PREFIX = 'msk_';

/** A new key: `msk_` + 40 base64url characters (240 bits). */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(30).toString('base64url');
}

/** What is stored of a key, and what it is looked up by: its SHA-256, hex. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
