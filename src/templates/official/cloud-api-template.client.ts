import { Injectable } from '@nestjs/common';
import { AppConfig, ConfigError } from '../../config/app-config';
import { ApiError } from '../../common/errors';
import { classifyHttpStatus, ProviderHttpResponse, requestJson } from '../../providers/http/provider-http';
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
    const res = await this.call('POST', `/${encodeURIComponent(waba)}/message_templates`, cloudTemplatePayload(s));
    const body = record(res.body);
    if (res.status >= 200 && res.status < 300) {
      const id = typeof body.id === 'string' || typeof body.id === 'number' ? String(body.id) : null;
      if (!id) throw new ProviderError('failed', 'provider answered without a template id');
      return { providerTemplateId: id, status: STATUS[String(body.status ?? 'PENDING').toUpperCase()] ?? 'pending' };
    }
    const err = record(body.error) as GraphError;
    if (err.error_subcode !== undefined && DUPLICATE_SUBCODES.has(err.error_subcode)) {
      throw new ApiError('TEMPLATE_EXISTS', 'The provider already has a template with this name and language');
    }
    const shared = this.classify(res, err);
    if (shared) throw shared;
    if (res.status >= 400 && res.status < 500 && res.status !== 401 && res.status !== 403) {
      throw ApiError.validation(`The provider refused the template: ${err.error_user_msg ?? err.message ?? `HTTP ${res.status}`}`);
    }
    throw this.failed(res.status, err);
  }

  async fetchStatus(providerTemplateId: string): Promise<{ status: 'pending' | 'approved' | 'rejected'; reason: string | null } | null> {
    const res = await this.call('GET', `/${encodeURIComponent(providerTemplateId)}?fields=status,rejected_reason`);
    const body = record(res.body);
    if (res.status === 404) return null;
    if (res.status < 200 || res.status >= 300) {
      const err = record(body.error) as GraphError;
      throw this.classify(res, err) ?? this.failed(res.status, err);
    }
    const mapped = STATUS[String(body.status ?? '').toUpperCase()];
    if (!mapped) return null;
    const reason = typeof body.rejected_reason === 'string' && body.rejected_reason !== 'NONE' ? body.rejected_reason : null;
    return { status: mapped, reason };
  }

  /** Shared HTTP classification: 429 / Graph rate-limit codes (4, 80008) -> rate_limited, 408 / 5xx -> unavailable. */
  private classify(res: ProviderHttpResponse, err: GraphError): ProviderError | null {
    return classifyHttpStatus(res, err.message ?? `HTTP ${res.status}`, err.code === 4 || err.code === 80008);
  }

  private failed(status: number, err: GraphError): ProviderError {
    return new ProviderError('failed', `provider answered HTTP ${status}: ${err.message ?? ''}`.trim());
  }

  /** Timeouts and transport failures become ProviderError('unavailable') in the shared helper. */
  private call(method: 'GET' | 'POST', path: string, payload?: unknown): Promise<ProviderHttpResponse> {
    const token = this.config.required('CHATAPP_CLOUD_TOKEN');
    return requestJson(method, `${this.base}/${this.version}${path}`, payload, {
      timeoutMs: this.config.providerTimeoutMs,
      headers: { Authorization: `Bearer ${token}` },
    });
  }
}

function record(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
