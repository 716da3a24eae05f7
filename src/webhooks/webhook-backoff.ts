/** 1 first attempt + 3 retries. */
export const MAX_ATTEMPTS = 4;

/**
 * Wait before retry n (1-based): base, then 3x, 9x ... of it, plus up to 20% jitter so a burst of
 * failures against one receiver does not retry in lockstep. Never shorter than `base`.
 */
export function retryDelayMs(retry: number, baseMs: number, random: () => number = Math.random): number {
  const grown = baseMs * 3 ** Math.max(0, retry - 1);
  return Math.round(grown * (1 + 0.2 * random()));
}
