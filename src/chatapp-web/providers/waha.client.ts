import { Injectable } from '@nestjs/common';
import { ProviderError } from '../../providers/provider.types';
import { AppConfig } from '../../config/app-config';
import type { WahaConfig } from '../../config/adapters.config';

/**
 * Minimal HTTP client of a WAHA-compatible API. Connection errors, timeouts and 502/503/504/429 are
 * `unavailable` (503 to our caller); any other non-2xx or a body that is not JSON is `failed` (502).
 */
@Injectable()
export class WahaClient {
  private readonly waha: WahaConfig;

  constructor(config: AppConfig) {
    this.waha = config.waha;
  }

  /** GET a JSON document; `null` when the provider answers 404. */
  async getJson(path: string, query: Record<string, string | number> = {}): Promise<unknown> {
    const base = this.waha.baseUrl;
    if (!base) throw new ProviderError('failed', 'WAHA_BASE_URL is not configured');
    const url = new URL(`${base}${path}`);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (this.waha.apiKey) headers['X-Api-Key'] = this.waha.apiKey;
    let res: Response;
    try {
      res = await fetch(url, { headers, redirect: 'manual', signal: AbortSignal.timeout(this.waha.timeoutMs) });
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      throw new ProviderError(
        'unavailable',
        timedOut ? 'Web-session provider timed out' : 'Web-session provider is unreachable',
      );
    }
    let text: string;
    try {
      text = await res.text();
    } catch {
      throw new ProviderError('unavailable', 'Web-session provider closed the connection');
    }
    if (res.status === 404) return null;
    if ([429, 502, 503, 504].includes(res.status))
      throw new ProviderError('unavailable', `Web-session provider is unavailable (HTTP ${res.status})`);
    if (res.status < 200 || res.status > 299)
      throw new ProviderError('failed', `Web-session provider failed (HTTP ${res.status})`);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new ProviderError('failed', 'Web-session provider answered with a body that is not JSON');
    }
  }
}
