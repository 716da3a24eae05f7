import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig, ChannelName, CHANNELS } from '../config/app-config';
import { ChannelProvider } from './provider.types';
import { isLiveAccount } from '../accounts/account-mode';
import type { AccountId } from '../common/account-id';

/** Registered for every channel whatever the configuration (sandbox.provider.ts). */
const SANDBOX = 'sandbox';

/**
 * Adapters register themselves here (in their module's onModuleInit) under a channel and a name;
 * configuration (`PROVIDER_<CHANNEL>`, default `sandbox`) picks one per channel. A configured name
 * that no adapter registered stops start-up.
 */
@Injectable()
export class ProvidersRegistry implements OnApplicationBootstrap {
  private readonly adapters = new Map<string, ChannelProvider>();

  constructor(private readonly config: AppConfig) {}

  register(channel: ChannelName, name: string, provider: ChannelProvider): void {
    this.adapters.set(`${channel}:${name}`, provider);
  }

  /**
   * The adapter that sends for `accountId` on `channel`: the configured one, or the sandbox for every
   * message of an account's test mode whatever the configuration (a test key never reaches a provider).
   */
  forChannel(channel: ChannelName, accountId: AccountId): ChannelProvider {
    const name = isLiveAccount(accountId) ? this.config.providers.byChannel[channel] : SANDBOX;
    const provider = this.adapters.get(`${channel}:${name}`);
    if (!provider) throw new Error(`No provider "${name}" registered for channel ${channel}`);
    return provider;
  }

  onApplicationBootstrap(): void {
    for (const channel of CHANNELS) {
      const name = this.config.providers.byChannel[channel];
      if (!this.adapters.has(`${channel}:${name}`)) {
        const known = [...this.adapters.keys()].filter((k) => k.startsWith(`${channel}:`)).map((k) => k.split(':')[1]);
        throw new Error(
          `PROVIDER_${channel.toUpperCase()}="${name}" is not a known provider for ${channel} (known: ${known.join(', ') || 'none'})`,
        );
      }
    }
  }
}
