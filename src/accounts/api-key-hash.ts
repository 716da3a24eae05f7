import { createHash, randomBytes } from 'node:crypto';

import type { KeyMode } from './account-mode';

/** Live keys keep the first format; test keys say so at a glance (like Stripe's sk_test_). */
const API_KEY_PREFIX: Record<KeyMode, string> = { live: 'msk_', test: 'msk_test_' };

/** A new key: `msk_` (live) or `msk_test_` (test) + 40 base64url characters (240 bits). */
export function generateApiKey(mode: KeyMode = 'live'): string {
  return API_KEY_PREFIX[mode] + randomBytes(30).toString('base64url');
}

/** What is stored of a key, and what it is looked up by: its SHA-256, hex. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
