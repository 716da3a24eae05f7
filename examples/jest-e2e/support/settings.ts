import { createMessagingClient, type MessagingClient } from '../../../clients/typescript';

export interface Settings {
  /** MESSAGING_BASE_URL, without a trailing slash, e.g. `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** MESSAGING_TEST_KEY: a test owner key (`msk_test_...`). */
  testKey: string;
  /** MESSAGING_WAIT_MS: how long one wait (an event, a status) may take before the test fails. */
  waitMs: number;
}

/** The service and the key, from the environment. Refuses a live key: these tests send messages. */
export function settings(env: NodeJS.ProcessEnv = process.env): Settings {
  const baseUrl = env.MESSAGING_BASE_URL?.trim().replace(/\/+$/, '');
  const testKey = env.MESSAGING_TEST_KEY?.trim();
  if (!baseUrl || !testKey)
    throw new Error(
      'Set MESSAGING_BASE_URL (e.g. http://127.0.0.1:3000) and MESSAGING_TEST_KEY (a msk_test_... owner key)',
    );
  if (!testKey.startsWith('msk_test_'))
    throw new Error('MESSAGING_TEST_KEY is not a test key (msk_test_...): these tests send messages and spend balance');
  const waitMs = Number(env.MESSAGING_WAIT_MS ?? 30_000);
  if (!Number.isInteger(waitMs) || waitMs < 1) throw new Error('MESSAGING_WAIT_MS must be a positive integer (ms)');
  return { baseUrl, testKey, waitMs };
}

/** The typed client (openapi-fetch over the committed OpenAPI document) with the test key. */
export function client(s: Settings): MessagingClient {
  return createMessagingClient({ baseUrl: s.baseUrl, apiKey: s.testKey });
}
