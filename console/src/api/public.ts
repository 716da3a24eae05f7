import { createMessagingClient, type MessagingClient, type Schemas } from '../../../clients/typescript';

export type { MessagingClient, Schemas };

/** The typed client of the public API (clients/typescript), on the console's own origin. */
export function publicClient(apiKey: string): MessagingClient {
  return createMessagingClient({ baseUrl: window.location.origin, apiKey });
}
