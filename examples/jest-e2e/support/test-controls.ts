import type { Settings } from './settings';

/**
 * A call to a test-mode control route (`/api/v2/test/...`, test owner key only): it makes happen what
 * a provider, a customer or the operator would do (a receipt, an inbound SMS, a sender's approval).
 * Plain fetch, not the typed client: these routes are not in the committed schema.d.ts yet; once they
 * are, `api.POST('/api/v2/test/...')` types them like every other call.
 */
export async function testControl<T = unknown>(s: Settings, path: `/api/v2/test/${string}`, body?: object): Promise<T> {
  const res = await fetch(`${s.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'X-API-Key': s.testKey, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${text.slice(0, 500)}`);
  return (text ? JSON.parse(text) : null) as T;
}
