import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import type { WahaConfig } from '../../config/adapters.config';
import { ApiError } from '../../common/errors';
import { mediaKind } from '../../providers/media-kind';
import { classifyHttpStatus, postJson } from '../../providers/http/provider-http';
import { ChannelProvider, OutboundMessage, ProviderError, ProviderOutcome } from '../../providers/provider.types';
import { ProvidersRegistry } from '../../providers/providers.registry';
import { WebSessionsService } from '../web-sessions.service';
import { isObj, type Obj, wahaId } from './waha.mapping';

/**
 * chatapp_web sends through WAHA (`PROVIDER_CHATAPP_WEB=waha`): POST /api/sendText, or sendImage /
 * sendVideo / sendFile for an attachment, on the session's `providerSession`. WAHA takes no client
 * reference, so a send whose outcome was unknown (timeout) may be delivered twice if retried.
 */
@Injectable()
export class WahaSendProvider implements ChannelProvider, OnModuleInit {
  readonly name = 'waha';
  private readonly logger = new Logger(WahaSendProvider.name);
  private readonly waha: WahaConfig;

  constructor(
    private readonly registry: ProvidersRegistry,
    private readonly sessions: WebSessionsService,
    config: AppConfig,
  ) {
    this.waha = config.waha;
  }

  onModuleInit(): void {
    this.registry.register('chatapp_web', this.name, this);
  }

  async send(msg: OutboundMessage): Promise<ProviderOutcome> {
    const base = this.waha.baseUrl;
    if (!base) throw new ProviderError('failed', 'WAHA_BASE_URL is not configured');
    const session = await this.providerSession(msg);
    if (!session)
      return {
        status: 'rejected',
        code: 'PROVIDER_REJECTED',
        message: `web session ${msg.session ?? '(none)'} does not exist`,
      };
    const { path, payload } = wahaRequest(msg, session);
    const headers: Record<string, string> = this.waha.apiKey ? { 'X-Api-Key': this.waha.apiKey } : {};
    this.logger.log(`web-session message ${msg.messageId} -> ${path} on ${session}`);
    const res = await postJson(`${base}${path}`, payload, { timeoutMs: this.waha.timeoutMs, headers });
    const detail = isObj(res.body) && typeof res.body.message === 'string' ? res.body.message : `HTTP ${res.status}`;
    const transient = classifyHttpStatus(res, detail);
    if (transient) throw transient;
    if (res.status === 401 || res.status === 403)
      throw new ProviderError('failed', `WAHA refused our credentials: ${detail}`);
    if (res.status < 200 || res.status > 299) return { status: 'rejected', code: 'PROVIDER_REJECTED', message: detail };
    const body = isObj(res.body) ? res.body : {};
    const id = wahaId(body.id) ?? (isObj(body.key) ? wahaId(body.key.id) : null) ?? `waha:${msg.messageId}`;
    return { status: 'sent', providerMessageId: id };
  }

  private async providerSession(msg: OutboundMessage): Promise<string | null> {
    if (!msg.session) return null;
    try {
      return (await this.sessions.findOwned(msg.accountId, msg.session)).providerSession;
    } catch (err) {
      if (err instanceof ApiError && err.code === 'NOT_FOUND') return null;
      throw err;
    }
  }
}

function wahaRequest(msg: OutboundMessage, session: string): { path: string; payload: Obj } {
  const a = msg.attachment;
  if (!a) return { path: '/api/sendText', payload: { session, chatId: msg.to, text: msg.text ?? '' } };
  const kind = mediaKind(a.url, a.mimeType ?? null);
  const path = kind === 'image' ? '/api/sendImage' : kind === 'video' ? '/api/sendVideo' : '/api/sendFile';
  const file: Obj = {
    url: a.url,
    ...(a.mimeType ? { mimetype: a.mimeType } : {}),
    ...(a.fileName ? { filename: a.fileName } : {}),
  };
  return { path, payload: { session, chatId: msg.to, file, caption: msg.text ?? '' } };
}
