/** Polls `fn` until it returns true (no fixed sleeps in tests). Kept here so adapter tests need not boot the app. */
export async function waitFor(
  fn: () => Promise<boolean>,
  opts: { timeoutMs?: number; what?: string } = {},
): Promise<void> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10000);
  while (Date.now() < deadline) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`waitFor timed out: ${opts.what ?? 'condition'}`);
}
