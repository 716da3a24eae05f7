/**
 * Reads something until `done` says yes or the deadline passes: the way to wait for what the service
 * does in the background, instead of a fixed sleep. Returns the last reading; a timeout names what
 * was awaited and what was read last, so a failure says where it got stuck.
 */
export async function poll<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  opts: { timeoutMs: number; intervalMs?: number },
): Promise<T> {
  const deadline = Date.now() + opts.timeoutMs;
  let last: unknown = '(nothing read)';
  for (;;) {
    try {
      const value = await read();
      if (done(value)) return value;
      last = value;
    } catch (err) {
      last = err instanceof Error ? err.message : err;
    }
    if (Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, opts.intervalMs ?? 200));
  }
  throw new Error(`Timed out after ${opts.timeoutMs} ms waiting for ${what}; last read: ${JSON.stringify(last)}`);
}
