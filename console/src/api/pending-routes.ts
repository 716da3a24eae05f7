import { unwrap } from './failure';

// Routes not in openapi/public.json yet (API keys, branch m15-keys): called with a hand-typed fetch
// until they land, then replaced by the typed client and this file deleted.

async function call(apiKey: string, method: string, path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { 'X-API-Key': apiKey };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  return fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

// API keys (branch m15-keys).
export interface ApiKeyResource {
  id: string;
  name: string;
  prefix: string;
  role: 'owner' | 'member';
  permissions: string[];
  createdAt: string;
  lastUsedAt: string | null;
}

async function json<T>(response: Promise<Response>): Promise<T> {
  return unwrap(
    response.then(async (r) => (r.ok ? { data: (await r.json()) as T, response: r } : { error: await r.json().catch(() => null), response: r })),
  );
}

export const apiKeys = {
  list: (apiKey: string, query: { cursor?: string; limit?: number }) =>
    json<{ data: { apiKeys: ApiKeyResource[]; nextCursor: string | null; hasMore: boolean } }>(
      call(apiKey, 'GET', `/api/v2/api-keys?${new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)]))}`),
    ),
  create: (apiKey: string, body: { name: string; permissions: string[] }) => json<{ data: { apiKey: ApiKeyResource & { key: string } } }>(call(apiKey, 'POST', '/api/v2/api-keys', body)),
  revoke: (apiKey: string, id: string) => json<{ data: { id: string; revoked: true; revokedAt: string } }>(call(apiKey, 'DELETE', `/api/v2/api-keys/${encodeURIComponent(id)}`)),
};
