import { createHash, timingSafeEqual } from 'node:crypto';

/** Two hex digests compared in constant time; false when either is empty or their lengths differ. */
export function safeEqualHex(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** Two secrets (tokens) compared in constant time. */
export function safeEqualString(a: string, b: string): boolean {
  // Hash first so lengths match and the comparison time does not depend on where they differ.
  return safeEqualHex(sha256(a), sha256(b));
}

function sha256(s: string): string {
  return createHash('sha256').update(s, 'utf8').digest('hex');
}
