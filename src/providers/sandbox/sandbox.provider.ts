import { Injectable, OnModuleInit } from '@nestjs/common';
import { AppConfig, CHANNELS } from '../../config/app-config';
import { Clock } from '../../common/clock';
import { ProvidersRegistry } from '../providers.registry';
import { ChannelProvider, OutboundMessage, ProviderError, ProviderOutcome } from '../provider.types';
import { firstSandboxReceipt } from './sandbox-receipts';
import { SandboxStore } from './sandbox-store';
import { UnitOfWork } from '../../database/unit-of-work';

/**
 * Default provider of every channel. Records each call in `sandbox_deliveries` (readable through
 * the admin API from any replica). Deterministic: phone numbers ending in 0000 and emails whose
 * local part starts with `fail` are rejected (PROVIDER_REJECTED); ending in 0009 or starting with
 * `undeliverable` are sent, then fail by receipt (sandbox-receipts.ts). Honours injected faults. Our
 * message id is its idempotency reference: a second send of the same id delivers nothing new.
 */
@Injectable()
export class SandboxProvider implements ChannelProvider, OnModuleInit {
  readonly name = 'sandbox';
  readonly store: SandboxStore;

  constructor(
    private readonly registry: ProvidersRegistry,
    uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {
    this.store = new SandboxStore(uow, config.sandbox.faultRefreshMs);
  }

  onModuleInit(): void {
    for (const channel of CHANNELS) this.registry.register(channel, this.name, this);
  }

  async send(message: OutboundMessage): Promise<ProviderOutcome> {
    const taken = await this.store.takeFault(message.channel, message.accountId, this.clock.now());
    const fault = taken?.kind ?? null;
    // A slow provider: the call answers normally, only later.
    if (fault === 'delay') await new Promise((resolve) => setTimeout(resolve, taken?.delayMs ?? 0));
    if (fault === 'rate_limit') throw new ProviderError('rate_limited', 'Sandbox fault: rate limited', 1000);
    if (fault === 'unavailable') throw new ProviderError('unavailable', 'Sandbox fault: unavailable');
    // Never answers: lets tests exercise the pipeline's provider timeout.
    if (fault === 'timeout') return new Promise<ProviderOutcome>(() => undefined);
    const rejected = fault === 'reject' || SandboxProvider.rejects(message.to);
    const providerMessageId = `sbx_${message.messageId}`;
    const fresh = await this.store.record(
      {
        messageId: message.messageId,
        accountId: message.accountId,
        channel: message.channel,
        to: message.to,
        sender: message.sender ?? null,
        text: message.text ?? message.html ?? null,
        subject: message.subject ?? null,
        bulkJobId: message.bulkJobId ?? null,
        rowIndex: message.rowIndex ?? null,
        outcome: rejected ? 'rejected' : 'sent',
        providerMessageId,
        receipt: rejected
          ? null
          : firstSandboxReceipt(message.to, this.clock.now(), this.config.sandbox, !!message.instantReceipts),
        instantReceipts: !!message.instantReceipts,
      },
      this.clock.now(),
    );
    if (!fresh) return (await this.lookup(message.messageId)) as ProviderOutcome;
    return rejected
      ? { status: 'rejected', code: 'PROVIDER_REJECTED', message: `Sandbox rejects ${message.to}` }
      : { status: 'sent', providerMessageId };
  }

  async lookup(messageId: string): Promise<ProviderOutcome | null> {
    const found = await this.store.find(messageId);
    if (!found) return null;
    return found.outcome === 'sent'
      ? { status: 'sent', providerMessageId: found.providerMessageId }
      : { status: 'rejected', code: 'PROVIDER_REJECTED', message: 'Sandbox rejected this message' };
  }

  static rejects(to: string): boolean {
    return /0000$/.test(to) || (to.includes('@') && /^fail/i.test(to.split('@')[0] ?? ''));
  }
}
