import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { AppConfig, ConfigError } from '../../config/app-config';
import { classifyHttpStatus, postJson, ProviderHttpResponse } from '../http/provider-http';
import { ChannelProvider, OutboundMessage, ProviderError, ProviderOutcome, whenSelected } from '../provider.types';
import { ProvidersRegistry } from '../providers.registry';
import { cloudApiPayload } from './cloud-api.payload';
import { cloudApiSettings, isCloudApiRateLimit } from './cloud-api.settings';

interface MessagesEndpoint {
  url: string;
  token: string;
}

interface CloudApiError {
  message?: string;
  code?: number;
  error_subcode?: number;
  error_data?: { details?: string };
}

/** Error codes that settle the message for good: the recipient cannot get it. */
const RECIPIENT_CODES = new Set([131021, 131026, 131030, 131045, 131047, 131049, 131050]);

/** Official chat-app channel over a WhatsApp-Cloud-API-compatible HTTP API (`PROVIDER_CHATAPP=cloud_api`). */
@Injectable()
export class CloudApiProvider implements ChannelProvider, OnModuleInit {
  readonly name = 'cloud_api';
  private readonly logger = new Logger(CloudApiProvider.name);
  private endpoint: MessagesEndpoint | null = null;

  constructor(
    private readonly registry: ProvidersRegistry,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.registry.register('chatapp', this.name, this);
    if (this.config.providers.chatapp === this.name) this.endpoint = this.loadEndpoint();
  }

  private loadEndpoint(): MessagesEndpoint {
    const { base, version, token } = cloudApiSettings(this.config);
    const phoneNumberId = this.config.required('CHATAPP_CLOUD_PHONE_NUMBER_ID');
    if (!/^[A-Za-z0-9_-]+$/.test(phoneNumberId)) throw new ConfigError(`CHATAPP_CLOUD_PHONE_NUMBER_ID must be a phone number id (letters, digits, _ or -), got "${phoneNumberId}"`);
    return { url: `${base}/${version}/${phoneNumberId}/messages`, token };
  }

  async send(msg: OutboundMessage): Promise<ProviderOutcome> {
    const { url, token } = whenSelected(this.endpoint, this.name);
    const res = await postJson(url, cloudApiPayload(msg), {
      timeoutMs: this.config.providerTimeoutMs,
      headers: { Authorization: `Bearer ${token}` },
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
    const transient = classifyHttpStatus(res, detail, isCloudApiRateLimit(err.code));
    if (transient) throw transient;
    if (res.status >= 200 && res.status < 300) throw new ProviderError('failed', 'Provider accepted the call without a message id');
    if (res.status === 400 && err.code !== undefined && RECIPIENT_CODES.has(err.code)) {
      return { status: 'rejected', code: 'PROVIDER_REJECTED', message: detail };
    }
    throw new ProviderError('failed', `Provider refused the call (HTTP ${res.status}) ${detail}`);
  }
}
