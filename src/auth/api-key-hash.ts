import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const API_KEY_PREFIX = 'msk_';

/** A new key: `msk_` + 40 base64url characters (240 bits). */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(30).toString('base64url');
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function safeEqualHex(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

export function safeEqualString(a: string, b: string): boolean {
  // Hash first so lengths match and the comparison time does not depend on where they differ.
  return safeEqualHex(hashApiKey(a), hashApiKey(b));
}
