/**
 * Graph error codes that mean "slow down": app calls (4), WhatsApp Business Account (80007) and
 * Business Management API (80008) limits, message throughput (130429), spam rate (131048) and pair
 * rate (131056) limits.
 */
const RATE_LIMIT_CODES: ReadonlySet<number> = new Set([4, 80007, 80008, 130429, 131048, 131056]);

export function isCloudApiRateLimit(code: number | undefined): boolean {
  return code !== undefined && RATE_LIMIT_CODES.has(code);
}
