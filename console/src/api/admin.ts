import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './admin-schema';

// The operator API, typed the same way as the public client: openapi-fetch over types generated from
// openapi/admin.json by `npm run openapi:write` (admin-schema.d.ts). Operator-only, so it lives here
// and not in clients/typescript, which customers copy.
export type AdminClient = Client<paths>;
export type AdminSchemas = components['schemas'];

export function adminClient(token: string): AdminClient {
  return createClient<paths>({ baseUrl: window.location.origin, headers: { Authorization: `Bearer ${token}` } });
}
