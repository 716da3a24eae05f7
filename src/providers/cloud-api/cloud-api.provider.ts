import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { AppConfig, ConfigError } from '../../config/app-config';
import { readPattern, readUrl } from '../adapter-settings';
import { classifyHttpStatus, postJson, ProviderHttpResponse } from '../http/provider-http';
import { ChannelProvider, OutboundMessage, ProviderError, ProviderOutcome } from '../provider.types';
import { ProvidersRegistry } from '../providers.registry';
import { cloudApiPayload } from './cloud-api.payload';

interface CloudApiSettings {
  url: string;
  token: string;
}

interface CloudApiError {
  message?: string;
  code?: number;
  error_subcode?: number;
  error_data?: { details?: string };
}

/** Error codes that mean "slow down" (throughput, spam-rate and pair rate limits). */
const RATE_LIMIT_CODES = new Set([4, 80007, 130429, 131048, 131056]);
/** Error codes that settle the message for good: the recipient cannot get it. */
const RECIPIENT_CODES = new Set([131021, 131026, 131030, 131045, 131047, 131049, 131050]);

/** Official chat-app channel over a WhatsApp-Cloud-API-compatible HTTP API (`PROVIDER_CHATAPP=cloud_api`). */
@Injectable()
export class CloudApiProvider implements ChannelProvider, OnModuleInit {
  readonly name = 'cloud_api';
  private readonly logger = new Logger(CloudApiProvider.name);
  private settings: CloudApiSettings | null = null;

  constructor(
    private readonly registry: ProvidersRegistry,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.registry.register('chatapp', this.name, this);
    if (this.config.providers.chatapp === this.name) this.settings = this.loadSettings();
  }

  private loadSettings(): CloudApiSettings {
    const base = readUrl(this.config, 'CHATAPP_CLOUD_BASE_URL', 'https://graph.facebook.com', ['http', 'https']);
    const version = readPattern(this.config, 'CHATAPP_CLOUD_API_VERSION', 'v21.0', /^v\d+(\.\d+)?$/, 'a Graph API version like v21.0');
    const phoneNumberId = this.config.required('CHATAPP_CLOUD_PHONE_NUMBER_ID');
    if (!/^[A-Za-z0-9_-]+$/.test(phoneNumberId)) throw new ConfigError(`CHATAPP_CLOUD_PHONE_NUMBER_ID must be a phone number id (letters, digits, _ or -), got "${phoneNumberId}"`);
    return { url: `${base}/${version}/${phoneNumberId}/messages`, token: this.config.required('CHATAPP_CLOUD_TOKEN') };
  }

  async send(msg: OutboundMessage): Promise<ProviderOutcome> {
    const settings = this.settings ?? (this.settings = this.loadSettings());
    const res = await postJson(settings.url, cloudApiPayload(msg), {
      timeoutMs: this.config.providerTimeoutMs,
      headers: { Authorization: `Bearer ${settings.token}` },
    });
    const outcome = this.interpret(res);
    if (outcome.status === 'sent') {
      this.logger.log(`chatapp message ${msg.messageId} accepted as ${outcome.providerMessageId}`);
    } else {
      this.logger.warn(`chatapp message ${msg.messageId} rejected: ${outcome.message}`);
    }
    return outcome;
  }

  private interpret(res: ProviderHttpResponse): ProviderOutcome {
    const body = (res.body ?? {}) as { messages?: { id?: string }[]; error?: CloudApiError };
    const id = body.messages?.[0]?.id;
    if (res.status >= 200 && res.status < 300 && typeof id === 'string') return { status: 'sent', providerMessageId: id };
    const err = body.error ?? {};
    const detail = `${err.code ?? `HTTP ${res.status}`}: ${err.error_data?.details ?? err.message ?? 'no error body'}`;
    const transient = classifyHttpStatus(res, detail, err.code !== undefined && RATE_LIMIT_CODES.has(err.code));
    if (transient) throw transient;
    if (res.status >= 200 && res.status < 300) throw new ProviderError('failed', 'Provider accepted the call without a message id');
    if (res.status === 400 && err.code !== undefined && RECIPIENT_CODES.has(err.code)) {
      return { status: 'rejected', code: 'PROVIDER_REJECTED', message: detail };
    }
    throw new ProviderError('failed', `Provider refused the call (HTTP ${res.status}) ${detail}`);
  }
}
