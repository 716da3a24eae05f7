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
}

/** `PROVIDER_EMAIL` for `email`. */
export function providerVariable(channel: ChannelName): string {
  return `PROVIDER_${channel.toUpperCase()}`;
}

export function providersSection(r: EnvReader): ProvidersConfig {
  const pick = <C extends ChannelName>(channel: C): AdapterName<C> => r.oneOf(providerVariable(channel), CHANNEL_ADAPTERS[channel], 'sandbox');
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
  return { faultRefreshMs: r.int('SANDBOX_FAULT_REFRESH_MS', 200, 0, 60_000) };
}
