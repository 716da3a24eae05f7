import { Injectable, OnModuleInit } from '@nestjs/common';
import { CHANNELS } from '../../config/app-config';
import { ProvidersRegistry } from '../providers.registry';
import { ChannelProvider, OutboundMessage, ProviderOutcome } from '../provider.types';

/**
 * Default provider of every channel. Deterministic: phone numbers ending in 0000 and emails whose
 * local part starts with `fail` are rejected (PROVIDER_REJECTED).
 */
@Injectable()
export class SandboxProvider implements ChannelProvider, OnModuleInit {
  readonly name = 'sandbox';

  constructor(private readonly registry: ProvidersRegistry) {}

  onModuleInit(): void {
    for (const channel of CHANNELS) this.registry.register(channel, this.name, this);
  }

  async send(message: OutboundMessage): Promise<ProviderOutcome> {
    if (SandboxProvider.rejects(message.to)) {
      return { status: 'rejected', code: 'PROVIDER_REJECTED', message: `Sandbox rejects ${message.to}` };
    }
    return { status: 'sent', providerMessageId: `sbx_${message.messageId}` };
  }

  static rejects(to: string): boolean {
    return /0000$/.test(to) || /^fail/i.test(to.split('@')[0] ?? '') && to.includes('@');
  }
}
