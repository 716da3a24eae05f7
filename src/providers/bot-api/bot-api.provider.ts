import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import type { BotApiConfig } from '../../config/adapters.config';
import { mediaKind } from '../media-kind';
import { classifyHttpStatus, postJson, ProviderHttpResponse } from '../http/provider-http';
import { ChannelProvider, OutboundMessage, ProviderError, ProviderOutcome, whenSelected } from '../provider.types';
import { ProvidersRegistry } from '../providers.registry';

interface BotApiReply {
  ok?: boolean;
  result?: { message_id?: number; chat?: { id?: number | string } };
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number };
}

/** Descriptions that mean this chat can never receive the message (Telegram wording). */
const RECIPIENT_GONE = [
  /chat not found/i,
  /user not found/i,
  /bot was blocked/i,
  /user is deactivated/i,
  /bot was kicked/i,
  /PEER_ID_INVALID/i,
  /not enough rights/i,
];

/**
 * Messaging-bot channel over a Telegram-Bot-API-compatible HTTP API (`PROVIDER_MESSAGING_BOT=bot_api`).
 * The Bot API has no idempotency key or client reference: a retry after an unknown outcome can
 * deliver twice. Our message id is therefore logged with every call and with the provider's
 * `chat_id:message_id`, which is what we store as the provider message id.
 */
@Injectable()
export class BotApiProvider implements ChannelProvider, OnModuleInit {
  readonly name = 'bot_api';
  private readonly logger = new Logger(BotApiProvider.name);
  private settings: BotApiConfig | null = null;

  constructor(
    private readonly registry: ProvidersRegistry,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.registry.register('messaging_bot', this.name, this);
    this.settings = this.config.botApi;
  }

  async send(msg: OutboundMessage): Promise<ProviderOutcome> {
    const { baseUrl, token } = whenSelected(this.settings, this.name);
    const { method, payload } = botRequest(msg);
    const call = `bot message ${msg.messageId} ${method} chat ${msg.to}`;
    let outcome: ProviderOutcome;
    try {
      outcome = interpret(
        await postJson(`${baseUrl}/bot${token}/${method}`, payload, {
          timeoutMs: this.config.providers.timeoutMs,
          redact: token,
        }),
        msg.to,
      );
    } catch (err) {
      // One line per call whatever the outcome: after an unknown outcome this is how a duplicate is traced.
      this.logger.warn(`${call} not settled: ${(err as Error).message}`);
      throw err;
    }
    if (outcome.status === 'sent') this.logger.log(`${call} delivered as ${outcome.providerMessageId}`);
    else this.logger.warn(`${call} rejected: ${outcome.message}`);
    return outcome;
  }
}

function botRequest(msg: OutboundMessage): { method: string; payload: Record<string, unknown> } {
  const text = msg.text ?? '';
  if (!msg.attachment) return { method: 'sendMessage', payload: { chat_id: msg.to, text } };
  const kind = mediaKind(msg.attachment.url, msg.attachment.mimeType ?? null);
  const field = kind === 'image' ? 'photo' : kind;
  const method = `send${field[0].toUpperCase()}${field.slice(1)}`;
  return { method, payload: { chat_id: msg.to, [field]: msg.attachment.url, ...(text ? { caption: text } : {}) } };
}

function interpret(res: ProviderHttpResponse, chatId: string): ProviderOutcome {
  const body = (res.body ?? {}) as BotApiReply;
  if (body.ok === true && body.result?.message_id !== undefined) {
    return { status: 'sent', providerMessageId: `${body.result.chat?.id ?? chatId}:${body.result.message_id}` };
  }
  const code = body.error_code ?? res.status;
  const detail = `${code}: ${body.description ?? 'no description'}`;
  const retryAfterMs =
    body.parameters?.retry_after !== undefined ? body.parameters.retry_after * 1000 : res.retryAfterMs;
  const transient = classifyHttpStatus({ status: res.status, retryAfterMs }, detail, code === 429);
  if (transient) throw transient;
  if ((code === 400 || code === 403) && RECIPIENT_GONE.some((re) => re.test(body.description ?? ''))) {
    return { status: 'rejected', code: 'PROVIDER_REJECTED', message: detail };
  }
  throw new ProviderError('failed', `Bot API refused the call (${detail})`);
}
