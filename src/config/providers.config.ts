import type { EnvReader } from './env-reader';

export type ChannelName = 'local_sms' | 'chatapp' | 'chatapp_web' | 'messaging_bot' | 'email';
export const CHANNELS: readonly ChannelName[] = ['local_sms', 'chatapp', 'chatapp_web', 'messaging_bot', 'email'];

/** The adapters each channel can be given (`PROVIDER_<CHANNEL>`); `sandbox` serves every channel. */
export const CHANNEL_ADAPTERS = {
  local_sms: ['sandbox', 'smpp'],
  chatapp: ['sandbox', 'cloud_api'],
  chatapp_web: ['sandbox', 'waha'],
  messaging_bot: ['sandbox', 'bot_api'],
  email: ['sandbox', 'smtp'],
} as const satisfies Record<ChannelName, readonly string[]>;

export type AdapterName<C extends ChannelName = ChannelName> = (typeof CHANNEL_ADAPTERS)[C][number];

export interface ProvidersConfig {
  /** The adapter of each channel (`sandbox` by default). */
  byChannel: { [C in ChannelName]: AdapterName<C> };
  /** Timeout of every provider call. */
  timeoutMs: number;
}

export interface SandboxConfig {
  /** How often a replica re-reads injected faults. */
  faultRefreshMs: number;
  /** Simulated receipts: `delivered` (or `failed` / UNDELIVERED for the documented recipients) this long after the send. */
  deliveredAfterMs: number;
  /** Chat channels (chatapp, chatapp_web, messaging_bot): `read` this long after the send. */
  readAfterMs: number;
  /** How often a replica looks for due simulated receipts, and how many it takes per look. */
  receiptTickMs: number;
  receiptBatch: number;
}

/** `PROVIDER_EMAIL` for `email`. */
export function providerVariable(channel: ChannelName): string {
  return `PROVIDER_${channel.toUpperCase()}`;
}

export function providersSection(r: EnvReader): ProvidersConfig {
  const pick = <C extends ChannelName>(channel: C): AdapterName<C> =>
    r.oneOf(providerVariable(channel), CHANNEL_ADAPTERS[channel], 'sandbox');
  return {
    byChannel: {
      local_sms: pick('local_sms'),
      chatapp: pick('chatapp'),
      chatapp_web: pick('chatapp_web'),
      messaging_bot: pick('messaging_bot'),
      email: pick('email'),
    },
    timeoutMs: r.int('PROVIDER_TIMEOUT_MS', 10000, 1),
  };
}

export function sandboxSection(r: EnvReader): SandboxConfig {
  const deliveredAfterMs = r.int('SANDBOX_DELIVERED_AFTER_MS', 1000, 0);
  return {
    faultRefreshMs: r.int('SANDBOX_FAULT_REFRESH_MS', 200, 0, 60_000),
    deliveredAfterMs,
    readAfterMs: Math.max(deliveredAfterMs, r.int('SANDBOX_READ_AFTER_MS', 3000, 0)),
    receiptTickMs: r.int('SANDBOX_RECEIPT_TICK_MS', 250, 10, 60_000),
    receiptBatch: r.int('SANDBOX_RECEIPT_BATCH', 500, 1, 5000),
  };
}
