/**
 * A random idempotency key. crypto.getRandomValues, not crypto.randomUUID: the console is often opened
 * over plain HTTP on a LAN host name, which is not a secure context, and randomUUID exists only in one.
 */
export function randomKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `console-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}
