import { randomInt } from 'node:crypto';

/**
 * Recipients for the sandbox, which every test-mode send goes to. Its documented numbers:
 * ending in 0000, the send is rejected (the message `failed`, PROVIDER_REJECTED, refunded); ending in
 * 0009, the message is sent, then a receipt fails it (UNDELIVERED). Any other number is delivered.
 * Saudi mobile numbers (+9665...), which a new account may send to by default.
 */
export function deliverable(): string {
  const n = `+96650${String(randomInt(1_000_000, 10_000_000))}`;
  return /0000$|0009$/.test(n) ? `${n.slice(0, -1)}1` : n;
}

/** A number the sandbox rejects at send (PROVIDER_REJECTED). */
export function rejectedAtSend(): string {
  return `${deliverable().slice(0, -4)}0000`;
}

/** A number the sandbox takes, then fails by receipt (UNDELIVERED). */
export function undeliverable(): string {
  return `${deliverable().slice(0, -4)}0009`;
}
