import { AppConfig } from '../../config/app-config';
import { readPattern, readUrl } from '../adapter-settings';

/** Where and how to call the Graph API; shared by message sending and template submission. */
export interface CloudApiSettings {
  /** CHATAPP_CLOUD_BASE_URL without a trailing slash. */
  base: string;
  /** CHATAPP_CLOUD_API_VERSION, e.g. v21.0. */
  version: string;
  token: string;
}

/** Reads and checks the CHATAPP_CLOUD_* connection settings; a bad value throws a ConfigError naming it. */
export function cloudApiSettings(config: AppConfig): CloudApiSettings {
  return {
    base: readUrl(config, 'CHATAPP_CLOUD_BASE_URL', 'https://graph.facebook.com', ['http', 'https']),
    version: readPattern(config, 'CHATAPP_CLOUD_API_VERSION', 'v21.0', /^v\d+(\.\d+)?$/, 'a Graph API version like v21.0'),
    token: config.required('CHATAPP_CLOUD_TOKEN'),
  };
}

/**
 * Graph error codes that mean "slow down": app calls (4), WhatsApp Business Account (80007) and
 * Business Management API (80008) limits, message throughput (130429), spam rate (131048) and pair
 * rate (131056) limits.
 */
const RATE_LIMIT_CODES: ReadonlySet<number> = new Set([4, 80007, 80008, 130429, 131048, 131056]);

export function isCloudApiRateLimit(code: number | undefined): boolean {
  return code !== undefined && RATE_LIMIT_CODES.has(code);
}
