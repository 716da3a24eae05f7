import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import type { CloudApiConfig } from '../../config/adapters.config';
import { ApiError } from '../../common/errors';
import { classifyHttpStatus, postBytes, ProviderHttpResponse, requestJson } from '../../providers/http/provider-http';
import { isCloudApiRateLimit } from '../../providers/cloud-api/cloud-api.settings';
import { ProviderError } from '../../providers/provider.types';
import { countPlaceholders } from '../template-rules';
import { cloudTemplatePayload } from './cloud-api-template.payload';
import {
  HeaderMediaSource,
  OfficialTemplateClient,
  OfficialTemplateReceipt,
  OfficialTemplateSubmission,
  ProviderTemplateRecord,
} from './official-template-client';
import { mapProviderStatus, ProviderReviewStatus, providerReason } from './provider-template-status';

interface GraphError {
  message?: string;
  code?: number;
  error_subcode?: number;
  error_user_msg?: string;
}

/** Graph "Unsupported get request": the object does not exist or this token cannot see it. */
const GRAPH_NO_OBJECT = 100;

/** An upload session id as Graph answers it (`upload:<base64>?sig=<...>`): used verbatim as a path, so no slash, space or fragment. */
const UPLOAD_SESSION_ID = /^[A-Za-z0-9:_\-.=?&%+]+$/;

/** Graph "template already exists" (same name and language). */
const DUPLICATE_SUBCODES = new Set([2388023, 2388024]);

/**
 * Template submission over a WhatsApp-Cloud-API-compatible HTTP API (`PROVIDER_CHATAPP=cloud_api`):
 * POST {CHATAPP_CLOUD_BASE_URL}/{version}/{waba-id}/message_templates with `Bearer CHATAPP_CLOUD_TOKEN`.
 * Header media go first through a resumable upload session of CHATAPP_CLOUD_APP_ID; its handle is the
 * header's example (`header_handle`), as the real API wants it.
 */
@Injectable()
export class CloudApiTemplateClient extends OfficialTemplateClient {
  readonly name = 'cloud_api';
  private readonly api: CloudApiConfig;
  private readonly timeoutMs: number;

  constructor(config: AppConfig) {
    super();
    if (!config.cloudApi) throw new Error('CloudApiTemplateClient needs PROVIDER_CHATAPP=cloud_api');
    this.api = config.cloudApi;
    this.timeoutMs = config.providers.timeoutMs;
  }

  async submit(s: OfficialTemplateSubmission): Promise<OfficialTemplateReceipt> {
    const waba = s.wabaId ?? this.api.wabaId;
    const media = s.header && s.header.type !== 'text' ? s.header.media : null;
    const handle = media ? await this.uploadHandle(media) : null;
    const res = await this.call(
      'POST',
      `/${encodeURIComponent(waba)}/message_templates`,
      cloudTemplatePayload(s, handle),
    );
    const body = record(res.body);
    if (res.status >= 200 && res.status < 300) {
      const id = typeof body.id === 'string' || typeof body.id === 'number' ? String(body.id) : null;
      if (!id) throw new ProviderError('failed', 'provider answered without a template id');
      return { providerTemplateId: id, status: mapProviderStatus(body.status ?? 'PENDING') ?? 'pending' };
    }
    const err = record(body.error) as GraphError;
    if (err.error_subcode !== undefined && DUPLICATE_SUBCODES.has(err.error_subcode)) {
      throw new ApiError('TEMPLATE_EXISTS', 'The provider already has a template with this name and language');
    }
    const shared = this.classify(res, err);
    if (shared) throw shared;
    if (res.status >= 400 && res.status < 500 && res.status !== 401 && res.status !== 403) {
      throw ApiError.validation(
        `The provider refused the template: ${err.error_user_msg ?? err.message ?? `HTTP ${res.status}`}`,
      );
    }
    throw this.failed(res.status, err);
  }

  async fetchStatus(
    providerTemplateId: string,
  ): Promise<{ status: ProviderReviewStatus; reason: string | null } | null> {
    const res = await this.call('GET', `/${encodeURIComponent(providerTemplateId)}?fields=status,rejected_reason`);
    const body = record(res.body);
    if (res.status === 404) return null;
    if (res.status < 200 || res.status >= 300) {
      const err = record(body.error) as GraphError;
      throw this.classify(res, err) ?? this.failed(res.status, err);
    }
    const status = mapProviderStatus(body.status);
    return status ? { status, reason: providerReason(body.rejected_reason) } : null;
  }

  /**
   * Two reads: the template node by id (name, language, status, body), then the business account's
   * templates of that name, because the node does not say whose it is: an id from another business
   * account is "unknown" here.
   */
  async lookup(providerTemplateId: string, wabaId: string | null): Promise<ProviderTemplateRecord | null> {
    const waba = wabaId ?? this.api.wabaId;
    const node = await this.read(
      `/${encodeURIComponent(providerTemplateId)}?fields=id,name,language,status,components`,
    );
    if (!node || typeof node.name !== 'string' || typeof node.language !== 'string') return null;
    const status = mapProviderStatus(node.status);
    if (!status) return null;
    const owned = await this.read(
      `/${encodeURIComponent(waba)}/message_templates?fields=id&limit=100&name=${encodeURIComponent(node.name)}`,
    );
    const ids = Array.isArray(owned?.data) ? owned.data.map((t) => String(record(t).id)) : [];
    if (!ids.includes(providerTemplateId)) return null;
    const components = Array.isArray(node.components) ? node.components.map(record) : [];
    const body = components.find((c) => String(c.type).toUpperCase() === 'BODY');
    const variableCount = typeof body?.text === 'string' ? countPlaceholders(body.text, 'body', false) : null;
    return { providerTemplateId, name: node.name, language: node.language, status, variableCount };
  }

  /**
   * Resumable upload: POST /{version}/{app-id}/uploads?file_length=&file_type= opens a session ({ id }),
   * then POST /{version}/{session-id} with the bytes, `Authorization: OAuth <token>` and
   * `file_offset: 0` answers the handle ({ h }).
   */
  private async uploadHandle(media: HeaderMediaSource): Promise<string> {
    const query = `file_length=${media.size}&file_type=${encodeURIComponent(media.mimeType)}`;
    const opened = await this.call('POST', `/${encodeURIComponent(this.api.appId)}/uploads?${query}`);
    const session = record(opened.body).id;
    if (opened.status < 200 || opened.status >= 300) throw this.refusedUpload(opened);
    if (typeof session !== 'string' || !UPLOAD_SESSION_ID.test(session))
      throw new ProviderError('failed', 'provider opened an upload session without a usable id');
    const bytes = await media.read();
    const sent = await postBytes(`${this.api.baseUrl}/${this.api.apiVersion}/${session}`, bytes, {
      timeoutMs: this.timeoutMs,
      headers: { Authorization: `OAuth ${this.api.token}`, file_offset: '0' },
    });
    const handle = record(sent.body).h;
    if (sent.status < 200 || sent.status >= 300) throw this.refusedUpload(sent);
    if (typeof handle !== 'string' || !handle)
      throw new ProviderError('failed', 'provider took the header media without a handle');
    return handle;
  }

  private refusedUpload(res: ProviderHttpResponse): ProviderError {
    const err = record(record(res.body).error) as GraphError;
    return (
      this.classify(res, err) ??
      new ProviderError('failed', `header media upload refused (HTTP ${res.status}): ${err.message ?? ''}`.trim())
    );
  }

  /** GET a Graph object; null when it does not exist or is not visible to this token. */
  private async read(path: string): Promise<Record<string, unknown> | null> {
    const res = await this.call('GET', path);
    const body = record(res.body);
    const err = record(body.error) as GraphError;
    // Graph answers an unknown id with 400 code 100 ("Object with ID ... does not exist").
    if (res.status === 404 || (res.status === 400 && err.code === GRAPH_NO_OBJECT)) return null;
    if (res.status < 200 || res.status >= 300) {
      throw this.classify(res, err) ?? this.failed(res.status, err);
    }
    return body;
  }

  /** Shared HTTP classification: 429 / Graph rate-limit codes -> rate_limited, 408 / 5xx -> unavailable. */
  private classify(res: ProviderHttpResponse, err: GraphError): ProviderError | null {
    return classifyHttpStatus(res, err.message ?? `HTTP ${res.status}`, isCloudApiRateLimit(err.code));
  }

  private failed(status: number, err: GraphError): ProviderError {
    return new ProviderError('failed', `provider answered HTTP ${status}: ${err.message ?? ''}`.trim());
  }

  /** Timeouts and transport failures become ProviderError('unavailable') in the shared helper. */
  private call(method: 'GET' | 'POST', path: string, payload?: unknown): Promise<ProviderHttpResponse> {
    return requestJson(method, `${this.api.baseUrl}/${this.api.apiVersion}${path}`, payload, {
      timeoutMs: this.timeoutMs,
      headers: { Authorization: `Bearer ${this.api.token}` },
    });
  }
}

function record(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
