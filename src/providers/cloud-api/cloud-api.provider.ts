import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { PHONE_NUMBER_ID } from '../../config/adapters.config';
import { classifyHttpStatus, postJson, ProviderHttpResponse } from '../http/provider-http';
import {
  ChannelProvider,
  OutboundMessage,
  ProviderError,
  ProviderOutcome,
  TemplateRoute,
  whenSelected,
} from '../provider.types';
import { ProvidersRegistry } from '../providers.registry';
import { cloudApiPayload } from './cloud-api.payload';
import { isCloudApiRateLimit } from './cloud-api.settings';

interface MessagesEndpoint {
  /** `{base}/{version}`: a phone-number id and `/messages` follow. */
  api: string;
  platformPhoneNumberId: string;
  token: string;
}

interface CloudApiError {
  message?: string;
  code?: number;
  error_subcode?: number;
  error_data?: { details?: string };
}

/** Error codes that settle the message for good: the recipient cannot get it. */
const UNROUTABLE =
  "The template's official sender has no provider phone-number id; it is not sent from any other number";

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
    const cloud = this.config.cloudApi;
    if (cloud)
      this.endpoint = {
        api: `${cloud.baseUrl}/${cloud.apiVersion}`,
        platformPhoneNumberId: cloud.phoneNumberId,
        token: cloud.token,
      };
  }

  async send(msg: OutboundMessage): Promise<ProviderOutcome> {
    const { api, platformPhoneNumberId, token } = whenSelected(this.endpoint, this.name);
    const from = msg.template ? this.templateSender(msg.template.route, platformPhoneNumberId) : platformPhoneNumberId;
    if (from === null) {
      this.logger.warn(
        `chatapp message ${msg.messageId} refused: template ${msg.template?.id} has no number to go out from`,
      );
      return { status: 'rejected', code: 'PROVIDER_REJECTED', message: UNROUTABLE };
    }
    const res = await postJson(`${api}/${from}/messages`, cloudApiPayload(msg), {
      timeoutMs: this.config.providers.timeoutMs,
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

  /**
   * The phone-number id a template is posted from: the platform number for platform templates, the
   * account sender's own id for its templates, and none (refused) when the template's sender has no
   * usable id. Never another number: the provider resolves the template by name + language in the
   * sending number's business account, so a wrong number could send someone else's template.
   */
  private templateSender(route: TemplateRoute | null, platformPhoneNumberId: string): string | null {
    if (route?.via === 'platform') return platformPhoneNumberId;
    if (route?.via === 'account' && route.phoneNumberId !== null && PHONE_NUMBER_ID.test(route.phoneNumberId))
      return route.phoneNumberId;
    return null;
  }

  private interpret(res: ProviderHttpResponse): ProviderOutcome {
    const body = (res.body ?? {}) as { messages?: { id?: string }[]; error?: CloudApiError };
    const id = body.messages?.[0]?.id;
    if (res.status >= 200 && res.status < 300 && typeof id === 'string')
      return { status: 'sent', providerMessageId: id };
    const err = body.error ?? {};
    const detail = `${err.code ?? `HTTP ${res.status}`}: ${err.error_data?.details ?? err.message ?? 'no error body'}`;
    const transient = classifyHttpStatus(res, detail, isCloudApiRateLimit(err.code));
    if (transient) throw transient;
    if (res.status >= 200 && res.status < 300)
      throw new ProviderError('failed', 'Provider accepted the call without a message id');
    if (res.status === 400 && err.code !== undefined && RECIPIENT_CODES.has(err.code)) {
      return { status: 'rejected', code: 'PROVIDER_REJECTED', message: detail };
    }
    throw new ProviderError('failed', `Provider refused the call (HTTP ${res.status}) ${detail}`);
  }
}
