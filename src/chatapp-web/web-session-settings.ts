import { Injectable } from '@nestjs/common';
import { AppConfig, ConfigError } from '../config/app-config';
import type { WebSessionProviderName } from './web-session.types';

/** Configuration of the web-session providers, read and checked once at boot. */
@Injectable()
export class WebSessionSettings {
  /** Provider of sessions created without an explicit one (CHATAPP_WEB_SESSION_PROVIDER). */
  readonly defaultProvider: WebSessionProviderName;
  readonly wahaBaseUrl: string | null;
  readonly wahaApiKey: string | null;
  readonly wahaTimeoutMs: number;

  constructor(config: AppConfig) {
    const provider = config.optional('CHATAPP_WEB_SESSION_PROVIDER') ?? 'sandbox';
    if (provider !== 'sandbox' && provider !== 'waha') {
      throw new ConfigError(`CHATAPP_WEB_SESSION_PROVIDER must be sandbox or waha, got "${provider}"`);
    }
    this.defaultProvider = provider;
    this.wahaBaseUrl = config.optional('WAHA_BASE_URL')?.replace(/\/+$/, '') ?? null;
    if (provider === 'waha' && !this.wahaBaseUrl) throw new ConfigError('WAHA_BASE_URL is required by CHATAPP_WEB_SESSION_PROVIDER=waha');
    if (this.wahaBaseUrl && !/^https?:\/\//.test(this.wahaBaseUrl)) throw new ConfigError('WAHA_BASE_URL must start with http:// or https://');
    this.wahaApiKey = config.optional('WAHA_API_KEY');
    this.wahaTimeoutMs = config.int('WAHA_TIMEOUT_MS', config.providerTimeoutMs, 1, 120_000);
  }
}
