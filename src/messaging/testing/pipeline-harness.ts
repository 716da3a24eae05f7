import 'reflect-metadata';
import { Registry } from 'prom-client';
import { KeyCallerCache } from '../../accounts/key-caller-cache';
import { LedgerBatch } from '../../accounts/ledger-batch';
import { accountBalances, insertAccountRow } from '../../accounts/testing/account-rows';
import { LedgerService } from '../../accounts/ledger.service';
import { FakeClock } from '../../common/fake-clock';
import { TargetPolicy } from '../../common/net/target-policy';
import { AppConfig, CHANNELS, loadConfig } from '../../config/app-config';
import { openInMemoryDatabase } from '../../database/testing/in-memory-database';
import type { UnitOfWork } from '../../database/unit-of-work';
import { MetricsService } from '../../metrics/metrics.service';
import { ProvidersRegistry } from '../../providers/providers.registry';
import { ChannelProvider, OutboundMessage, ProviderError, ProviderOutcome } from '../../providers/provider.types';
import { DeliveryStep } from '../delivery-step';
import { MessageEntity } from '../entities/message.entity';
import { MessageLogRepository } from '../message-log.repository';
import { MessagePayments } from '../message-payments';
import { OutcomeRecorder } from '../outcome-recorder';
import { ProviderGateway } from '../provider-gateway';
import { ReceiptIntakeService } from '../lifecycle/receipt-intake.service';
import { ReceiptsRepository } from '../lifecycle/receipts.repository';
import { StatusTrail } from '../lifecycle/status-trail';
import type { DomainEvent } from '../events/event-sink';
import { SendPipeline } from '../send-pipeline';
import type { ValidatedMessage } from '../validation/validated-message';
import { WindowSender } from '../window-sender';
import { AccountId, accountIdOf } from '../../common/account-id';

/** What the fake provider does with one call: answer (sent / rejected), or fail like an adapter. */
export type FakeAnswer = 'sent' | 'rejected' | 'rate_limited' | 'unavailable' | 'failed';

/**
 * A channel provider for unit specs, on the fake clock: each call takes `callMs` of clock time and
 * answers from `script` (one answer per call, then `sent`). With `lookup`, it remembers what it took
 * (sent or rejected) under our message id, as the real adapters with a lookup do.
 */
export class FakeProvider implements ChannelProvider {
  readonly name = 'sandbox';
  readonly calls: { messageId: string; startedAt: number }[] = [];
  readonly lookups: string[] = [];
  script: FakeAnswer[] = [];
  callMs = 0;
  lookup?: (messageId: string) => Promise<ProviderOutcome | null>;
  private readonly taken = new Map<string, ProviderOutcome>();

  constructor(
    private readonly clock: FakeClock,
    withLookup: boolean,
  ) {
    if (withLookup) {
      this.lookup = async (messageId) => {
        this.lookups.push(messageId);
        return this.taken.get(messageId) ?? null;
      };
    }
  }

  async send(m: OutboundMessage): Promise<ProviderOutcome> {
    this.calls.push({ messageId: m.messageId, startedAt: this.clock.now() });
    const answer = this.script.shift() ?? 'sent';
    await Promise.resolve();
    this.clock.advance(this.callMs);
    if (answer === 'rate_limited') throw new ProviderError('rate_limited', 'fake: slow down', 2000);
    if (answer === 'unavailable') throw new ProviderError('unavailable', 'fake: down');
    if (answer === 'failed') throw new ProviderError('failed', 'fake: broken');
    const outcome: ProviderOutcome =
      answer === 'sent'
        ? { status: 'sent', providerMessageId: `fake_${m.messageId}` }
        : { status: 'rejected', code: 'PROVIDER_REJECTED', message: 'fake: no such number' };
    this.taken.set(m.messageId, outcome);
    return outcome;
  }

  /** Whether it was handed a message id (and took it). */
  took(messageId: string): boolean {
    return this.taken.has(messageId);
  }
}

export interface PipelineHarness {
  config: AppConfig;
  clock: FakeClock;
  provider: FakeProvider;
  uow: UnitOfWork;
  log: MessageLogRepository;
  payments: MessagePayments;
  recorder: OutcomeRecorder;
  pipeline: SendPipeline;
  windows: WindowSender;
  /** Each EVENT_SINK.record() call's events, in order. */
  events: DomainEvent[][];
  /** A fresh account (wallet only, unless told). */
  account(f?: { wallet?: number; free?: number; active?: boolean }): Promise<AccountId>;
  wallet(accountId: AccountId): Promise<number>;
  message(accountId: AccountId, id: string): Promise<MessageEntity | null>;
  /** messages_total{status} summed over channels. */
  counted(status: 'sent' | 'failed' | 'scheduled'): Promise<number>;
  close(): Promise<void>;
}

/** An SMS as the validator hands it over (price 5 in the default configuration). */
export function smsTo(to: string, extra: Partial<ValidatedMessage> = {}): ValidatedMessage {
  return {
    channel: 'local_sms',
    messageType: 'free_text',
    to,
    sender: 'MsgService',
    text: 'hi',
    subject: null,
    html: null,
    template: null,
    attachment: null,
    session: null,
    chatId: null,
    scheduleAt: null,
    price: 5,
    encoding: 'gsm7',
    segments: 1,
    ...extra,
  };
}

/** The pipeline's real steps on an embedded in-memory database, a fake clock and a fake provider. */
export async function pipelineHarness(opts: { lookup: boolean; clock?: FakeClock }): Promise<PipelineHarness> {
  const config = loadConfig({ NODE_ENV: 'test' });
  const { ds, uow } = await openInMemoryDatabase([MessageEntity]);
  const clock = opts.clock ?? new FakeClock();
  const registry = new Registry();
  const metrics = new MetricsService(registry, config);
  const providers = new ProvidersRegistry(config);
  const provider = new FakeProvider(clock, opts.lookup);
  for (const channel of CHANNELS) providers.register(channel, 'sandbox', provider);
  const targets = new TargetPolicy(config, { resolve: () => Promise.reject(new Error('no DNS in unit specs')) });
  const gateway = new ProviderGateway(
    providers,
    config,
    targets,
    { routeForSend: () => Promise.resolve(null) },
    metrics,
  );
  const callers = new KeyCallerCache(config, clock);
  const batch = new LedgerBatch(uow, config, callers);
  const ledger = new LedgerService(uow, config, batch, callers);
  const events: DomainEvent[][] = [];
  const trail = new StatusTrail(uow, {
    record: (_tx, evs) => {
      events.push([...evs]);
      return Promise.resolve();
    },
  });
  const receiptStore = new ReceiptsRepository(uow);
  const log = new MessageLogRepository(uow, trail, receiptStore);
  const receipts = new ReceiptIntakeService(uow, receiptStore, trail, clock, config, metrics);
  const payments = new MessagePayments(ledger, log, gateway, clock, uow, batch);
  const delivery = new DeliveryStep(gateway, log, clock);
  const recorder = new OutcomeRecorder(log, ledger, uow, clock, metrics, receipts);
  const pipeline = new SendPipeline(payments, delivery, recorder, log);
  const windows = new WindowSender(pipeline, payments, delivery, recorder, log);
  let n = 0;
  return {
    config,
    clock,
    provider,
    uow,
    log,
    payments,
    recorder,
    pipeline,
    windows,
    events,
    async account(f = {}) {
      const id = `acc_spec_${++n}`;
      await insertAccountRow(ds, id, { name: 'spec', wallet: f.wallet ?? 1000, free: f.free ?? 0, active: f.active });
      return accountIdOf(id);
    },
    wallet: async (accountId) => (await accountBalances(ds, accountId)).wallet,
    message: (accountId, id) => log.findOwned(accountId, id),
    async counted(status) {
      const values = (await registry.getSingleMetric('messages_total')!.get()).values;
      return values.filter((v) => v.labels.status === status).reduce((s, v) => s + v.value, 0);
    },
    close: () => ds.destroy(),
  };
}
