import { ProviderError } from '../provider.types';

/** What an HTTP provider answered: status, parsed JSON body (null when not JSON), Retry-After in ms. */
export interface ProviderHttpResponse {
  status: number;
  body: unknown;
  retryAfterMs: number | null;
}

/**
 * POSTs JSON to a provider with a hard timeout (Node's global fetch + AbortSignal.timeout).
 * Transport failures never reach a verdict on the message: a timeout, refused or reset connection
 * becomes ProviderError('unavailable'). `redact` hides secrets that live in the URL (bot tokens).
 */
export async function postJson(
  url: string,
  payload: unknown,
  opts: { timeoutMs: number; headers?: Record<string, string>; redact?: string },
): Promise<ProviderHttpResponse> {
  return requestJson('POST', url, payload, opts);
}

/** Like postJson for any method; a GET (payload undefined) sends no body and no Content-Type. */
export async function requestJson(
  method: 'GET' | 'POST',
  url: string,
  payload: unknown,
  opts: { timeoutMs: number; headers?: Record<string, string>; redact?: string },
): Promise<ProviderHttpResponse> {
  const hasBody = payload !== undefined;
  return exchange(method, url, hasBody ? JSON.stringify(payload) : undefined, {
    ...opts,
    headers: { ...(hasBody ? { 'Content-Type': 'application/json' } : {}), ...opts.headers },
  });
}

/** POSTs raw bytes (an upload) and reads a JSON answer, with postJson's timeout and failure mapping. */
export async function postBytes(
  url: string,
  bytes: Buffer,
  opts: { timeoutMs: number; headers?: Record<string, string>; redact?: string },
): Promise<ProviderHttpResponse> {
  return exchange('POST', url, bytes, {
    ...opts,
    headers: { 'Content-Type': 'application/octet-stream', ...opts.headers },
  });
}

async function exchange(
  method: 'GET' | 'POST',
  url: string,
  body: string | Buffer | undefined,
  opts: { timeoutMs: number; headers?: Record<string, string>; redact?: string },
): Promise<ProviderHttpResponse> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: { Accept: 'application/json', ...opts.headers },
      body,
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
  } catch (err) {
    throw transportError(err, url, opts);
  }
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    throw transportError(err, url, opts);
  }
  return { status: res.status, body: parseJson(text), retryAfterMs: parseRetryAfter(res.headers.get('retry-after')) };
}

/**
 * Classification shared by the HTTP adapters for what the status alone decides: 429 (and a
 * provider-specific rate-limit code) -> rate_limited, 408/5xx -> unavailable. Returns null for the
 * rest (the adapter tells a recipient rejection from other failures using the provider's body).
 */
export function classifyHttpStatus(
  res: { status: number; retryAfterMs: number | null },
  detail: string,
  rateLimited = false,
): ProviderError | null {
  if (res.status === 429 || rateLimited)
    return new ProviderError('rate_limited', `Provider rate limit: ${detail}`, res.retryAfterMs);
  if (res.status === 408 || res.status >= 500)
    return new ProviderError('unavailable', `Provider unavailable (HTTP ${res.status}): ${detail}`);
  return null;
}

/** Retry-After as delay seconds or an HTTP date, in ms; null when absent or unreadable. */
export function parseRetryAfter(value: string | null): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

function parseJson(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

function transportError(err: unknown, url: string, opts: { timeoutMs: number; redact?: string }): ProviderError {
  const shown = opts.redact ? url.split(opts.redact).join('***') : url;
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') {
    return new ProviderError('unavailable', `Provider timed out after ${opts.timeoutMs} ms (${shown})`);
  }
  const reason = e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
  return new ProviderError('unavailable', `Provider unreachable (${shown}): ${reason}`);
}
