import { Injectable } from '@nestjs/common';
import { AppConfig, ConfigError } from '../../config/app-config';
import { ApiError } from '../../common/errors';
import { ProviderError } from '../../providers/provider.types';
import { cloudTemplatePayload } from './cloud-api-template.payload';
import { OfficialTemplateClient, OfficialTemplateReceipt, OfficialTemplateSubmission } from './official-template-client';

interface GraphError {
  message?: string;
  code?: number;
  error_subcode?: number;
  error_user_msg?: string;
}

const STATUS: Record<string, 'pending' | 'approved' | 'rejected'> = {
  PENDING: 'pending', IN_APPEAL: 'pending', APPROVED: 'approved', REJECTED: 'rejected', DISABLED: 'rejected', PAUSED: 'rejected',
};
/** Graph "template already exists" (same name and language). */
const DUPLICATE_SUBCODES = new Set([2388023, 2388024]);

/**
 * Template submission over a WhatsApp-Cloud-API-compatible HTTP API (`PROVIDER_CHATAPP=cloud_api`):
 * POST {CHATAPP_CLOUD_BASE_URL}/{version}/{waba-id}/message_templates with `Bearer CHATAPP_CLOUD_TOKEN`.
 */
@Injectable()
export class CloudApiTemplateClient extends OfficialTemplateClient {
  readonly name = 'cloud_api';
  private readonly base: string;
  private readonly version: string;

  constructor(private readonly config: AppConfig) {
    super();
    this.base = (config.optional('CHATAPP_CLOUD_BASE_URL') ?? 'https://graph.facebook.com').replace(/\/+$/, '');
    this.version = config.optional('CHATAPP_CLOUD_API_VERSION') ?? 'v21.0';
    if (!/^https?:\/\//.test(this.base)) throw new ConfigError('CHATAPP_CLOUD_BASE_URL must be an http(s) URL');
    if (!/^v\d+(\.\d+)?$/.test(this.version)) throw new ConfigError('CHATAPP_CLOUD_API_VERSION must look like v21.0');
    config.required('CHATAPP_CLOUD_TOKEN');
  }

  async submit(s: OfficialTemplateSubmission): Promise<OfficialTemplateReceipt> {
    const waba = s.wabaId ?? this.config.required('CHATAPP_CLOUD_WABA_ID');
    const { status, body } = await this.call('POST', `/${encodeURIComponent(waba)}/message_templates`, cloudTemplatePayload(s));
    if (status >= 200 && status < 300) {
      const id = typeof body.id === 'string' || typeof body.id === 'number' ? String(body.id) : null;
      if (!id) throw new ProviderError('failed', 'provider answered without a template id');
      return { providerTemplateId: id, status: STATUS[String(body.status ?? 'PENDING').toUpperCase()] ?? 'pending' };
    }
    const err = (body.error ?? {}) as GraphError;
    if (err.error_subcode !== undefined && DUPLICATE_SUBCODES.has(err.error_subcode)) {
      throw new ApiError('TEMPLATE_EXISTS', 'The provider already has a template with this name and language');
    }
    if (status >= 400 && status < 500 && status !== 401 && status !== 403 && status !== 429 && err.code !== 4 && err.code !== 80008) {
      throw ApiError.validation(`The provider refused the template: ${err.error_user_msg ?? err.message ?? `HTTP ${status}`}`);
    }
    throw this.failure(status, err);
  }

  async fetchStatus(providerTemplateId: string): Promise<{ status: 'pending' | 'approved' | 'rejected'; reason: string | null } | null> {
    const { status, body } = await this.call('GET', `/${encodeURIComponent(providerTemplateId)}?fields=status,rejected_reason`);
    if (status === 404) return null;
    if (status < 200 || status >= 300) throw this.failure(status, (body.error ?? {}) as GraphError);
    const mapped = STATUS[String(body.status ?? '').toUpperCase()];
    if (!mapped) return null;
    const reason = typeof body.rejected_reason === 'string' && body.rejected_reason !== 'NONE' ? body.rejected_reason : null;
    return { status: mapped, reason };
  }

  private failure(status: number, err: GraphError): ProviderError {
    if (status === 429 || err.code === 4 || err.code === 80008) return new ProviderError('rate_limited', 'provider rate limit');
    if (status >= 500) return new ProviderError('unavailable', `provider answered HTTP ${status}`);
    return new ProviderError('failed', `provider answered HTTP ${status}: ${err.message ?? ''}`.trim());
  }

  private async call(method: 'GET' | 'POST', path: string, payload?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    let res: Response;
    try {
      res = await fetch(`${this.base}/${this.version}${path}`, {
        method,
        headers: { Authorization: `Bearer ${this.config.required('CHATAPP_CLOUD_TOKEN')}`, ...(payload ? { 'Content-Type': 'application/json' } : {}) },
        body: payload ? JSON.stringify(payload) : undefined,
        signal: AbortSignal.timeout(this.config.providerTimeoutMs),
      });
    } catch (e) {
      const timeout = (e as Error).name === 'TimeoutError';
      throw new ProviderError('unavailable', timeout ? 'provider timed out' : 'provider unreachable');
    }
    let body: Record<string, unknown> = {};
    try {
      const text = await res.text();
      const parsed: unknown = text ? JSON.parse(text) : {};
      if (parsed && typeof parsed === 'object') body = parsed as Record<string, unknown>;
    } catch (e) {
      if ((e as Error).name === 'TimeoutError') throw new ProviderError('unavailable', 'provider timed out');
      if (res.status >= 500) return { status: res.status, body };
      if (res.ok) throw new ProviderError('failed', 'provider answered with invalid JSON');
    }
    return { status: res.status, body };
  }
}
