// A thin typed client for the Messaging Service API: openapi-fetch over types generated from
// openapi/public.json. Copy this folder (index.ts + schema.d.ts) into your project, or generate your
// own from /docs-json with openapi-typescript.
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths } from './schema';

export type { components, operations, paths };
export type Schemas = components['schemas'];
export type ErrorEnvelope = Schemas['ErrorEnvelope'];
export type ErrorCode = Schemas['ErrorCode'];
export type MessagingClient = Client<paths>;

export interface MessagingClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** The service's base URL, e.g. `http://localhost:3000` (PUBLIC_BASE_URL). */
  baseUrl: string;
  /** An API key of the account (owner or member key). */
  apiKey: string;
}

/** Every call is typed by path and method: `data` is the 2xx body, `error` the error envelope. */
export function createMessagingClient({ baseUrl, apiKey, headers, ...rest }: MessagingClientOptions): MessagingClient {
  return createClient<paths>({
    baseUrl,
    ...rest,
    headers: { ...(headers as Record<string, string> | undefined), 'X-API-Key': apiKey },
  });
}
