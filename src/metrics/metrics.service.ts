import { Inject, Injectable, Logger } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { type KeyMode, modeOfAccount } from '../accounts/account-mode';
import { AppConfig, ChannelName, CHANNELS } from '../config/app-config';
import { METRICS_REGISTRY } from './metrics-registry';

/** A message reaching one of these statuses is counted once (see recordMessage). */
export type CountedMessageStatus = 'scheduled' | 'sent' | 'delivered' | 'read' | 'failed' | 'cancelled';
/** How a provider call ended: a verdict (sent, rejected) or the failure kind the gateway maps to an error. */
export type ProviderCallOutcome = 'sent' | 'rejected' | 'rate_limited' | 'unavailable' | 'error';
/** A webhook delivery attempt: delivered, failed with another attempt to come, or failed for good. */
export type WebhookAttemptOutcome = 'delivered' | 'retrying' | 'failed';
/** The leased background loops (lease_takeovers_total{loop}). */
export type LeasedLoop =
  | 'bulk_intake'
  | 'bulk_validation'
  | 'bulk_dispatch'
  | 'bulk_reaper'
  | 'webhook_delivery'
  | 'scheduled_send'
  | 'retention_purge';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The `mode` label (`live` or `test`) of the series that count messages, sends, receipts, webhook
 * attempts and fraud decisions, so test traffic never counts in live figures (two values: the label
 * at most doubles those series). Work of no account (a platform block, a receipt no message has yet)
 * counts as live: test-mode messages only ever reach the sandbox, and its receipts come for messages
 * it was just handed, so an unmatched one is almost always a real provider's.
 */
function modeOf(accountId: string | null): KeyMode {
  return accountId === null ? 'live' : modeOfAccount(accountId);
}

/**
 * The service's metrics under their published names (docs/operations.md, docs/grafana-dashboard.json).
 * Features call these named methods and never see prom-client. Gauges over tables are set by the
 * owning module's gauge source (addGaugeSource), refreshed every METRICS_REFRESH_MS, never per scrape.
 */
@Injectable()
export class MetricsService {
  private readonly log = new Logger(MetricsService.name);
  private readonly sources = new Map<string, () => Promise<void>>();
  private readonly http: Histogram<'method' | 'route' | 'status'>;
  private readonly messages: Counter<'channel' | 'provider' | 'status' | 'mode'>;
  private readonly providerCalls: Histogram<'channel' | 'provider' | 'outcome' | 'mode'>;
  private readonly bulkJobs: Gauge<'status'>;
  private readonly bulkRowsPending: Gauge;
  private readonly bulkDispatched: Counter<'mode'>;
  private readonly webhookDeliveries: Counter<'outcome' | 'mode'>;
  private readonly webhookDuration: Histogram<'mode'>;
  private readonly outboxPending: Gauge;
  private readonly leaseTakeovers: Counter<'loop'>;
  private readonly receipts: Counter<'provider' | 'status' | 'mode'>;
  private readonly fraudBlocks: Counter<'scope' | 'reason' | 'mode'>;
  private readonly fraudRefusals: Counter<'reason' | 'mode'>;
  private readonly retentionPurged: Counter<'table'>;
  private readonly retentionOldest: Gauge<'table'>;

  constructor(
    @Inject(METRICS_REGISTRY) private readonly registry: Registry,
    private readonly config: AppConfig,
  ) {
    const registers = [registry];
    this.http = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP requests by method, matched route template ("unmatched" when none) and status',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.messages = new Counter({
      name: 'messages_total',
      help: 'Messages reaching a status (scheduled, sent, delivered, read, failed, cancelled), by channel, configured provider and mode (live, test)',
      labelNames: ['channel', 'provider', 'status', 'mode'],
      registers,
    });
    this.providerCalls = new Histogram({
      name: 'provider_request_duration_seconds',
      help: 'Provider send calls by channel, provider, outcome and mode (live, test)',
      labelNames: ['channel', 'provider', 'outcome', 'mode'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.bulkJobs = new Gauge({
      name: 'bulk_jobs',
      help: 'Bulk jobs in each live status (accepting, validating, queued, running, paused)',
      labelNames: ['status'],
      registers,
    });
    this.bulkRowsPending = new Gauge({
      name: 'bulk_rows_pending',
      help: 'Rows of live bulk jobs not yet sent or failed',
      registers,
    });
    this.bulkDispatched = new Counter({
      name: 'bulk_dispatch_messages_total',
      help: 'Bulk rows the dispatcher settled (sent or failed), by mode (live, test)',
      labelNames: ['mode'],
      registers,
    });
    this.webhookDeliveries = new Counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome (delivered, retrying, failed) and mode (live, test)',
      labelNames: ['outcome', 'mode'],
      registers,
    });
    this.webhookDuration = new Histogram({
      name: 'webhook_delivery_duration_seconds',
      help: 'Duration of webhook delivery attempts, by mode (live, test)',
      labelNames: ['mode'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.outboxPending = new Gauge({
      name: 'webhook_outbox_pending',
      help: 'Webhook deliveries waiting for an attempt (due or backing off)',
      registers,
    });
    this.leaseTakeovers = new Counter({
      name: 'lease_takeovers_total',
      help: 'Expired leases of another replica (or an earlier process) taken over, by loop',
      labelNames: ['loop'],
      registers,
    });
    this.receipts = new Counter({
      name: 'receipts_total',
      help: 'Provider delivery receipts accepted, by the configured provider of their message\'s channel ("unmatched" while no message is recorded for them), receipt status and mode (live, test)',
      labelNames: ['provider', 'status', 'mode'],
      registers,
    });
    this.fraudBlocks = new Counter({
      name: 'verification_fraud_blocks_total',
      help: 'Destination prefixes blocked by the verification fraud guard, by scope (account, platform), reason and mode (live, test)',
      labelNames: ['scope', 'reason', 'mode'],
      registers,
    });
    this.fraudRefusals = new Counter({
      name: 'verification_fraud_refusals_total',
      help: 'Verification codes refused by the fraud guard (FRAUD_SUSPECTED, nothing paid), by reason and mode (live, test)',
      labelNames: ['reason', 'mode'],
      registers,
    });
    this.retentionPurged = new Counter({
      name: 'retention_purged_rows_total',
      help: 'Rows deleted by the retention purger, by table',
      labelNames: ['table'],
      registers,
    });
    this.retentionOldest = new Gauge({
      name: 'retention_oldest_row_age_seconds',
      help: 'Age of the oldest row of each table the retention purger keeps bounded (0 when empty)',
      labelNames: ['table'],
      registers,
    });
  }

  /** Rows the retention purger deleted from `table` (after the unit that deleted them committed). */
  recordRetentionPurged(table: string, n: number): void {
    if (n > 0) this.retentionPurged.inc({ table }, n);
  }

  setRetentionOldestAge(table: string, seconds: number): void {
    this.retentionOldest.set({ table }, Math.max(0, seconds));
  }

  /** A fraud block was raised (once, by the request or replica that raised it): an account's, or (null) the platform's. */
  recordFraudBlock(accountId: string | null, reason: string): void {
    this.fraudBlocks.inc({ scope: accountId === null ? 'platform' : 'account', reason, mode: modeOf(accountId) });
  }

  /** A verification code of `accountId` was refused by the fraud guard: `blocked` (a block in force) or the reason of the block it raised. */
  recordFraudRefusal(accountId: string, reason: string): void {
    this.fraudRefusals.inc({ reason, mode: modeOf(accountId) });
  }

  recordHttpRequest(method: string, route: string, status: number, seconds: number): void {
    this.http.observe({ method, route, status: String(status) }, seconds);
  }

  /**
   * A message moved into `status` (once per move, after it is durable). A message counts once per
   * status it reaches: scheduled then sent counts under both; queued is transient and not counted.
   */
  recordMessage(accountId: string, channel: string, status: CountedMessageStatus, n = 1): void {
    if (n > 0) this.messages.inc({ channel, provider: this.providerOf(channel), status, mode: modeOf(accountId) }, n);
  }

  /**
   * A receipt accepted (once, as it arrives), for the message it matched; `message` null while no
   * message is recorded for its provider id.
   */
  recordReceipt(message: { accountId: string; channel: string } | null, status: string, n = 1): void {
    if (n <= 0) return;
    const provider = message === null ? 'unmatched' : this.providerOf(message.channel);
    this.receipts.inc({ provider, status, mode: modeOf(message?.accountId ?? null) }, n);
  }

  observeProviderCall(accountId: string, channel: string, outcome: ProviderCallOutcome, seconds: number): void {
    this.providerCalls.observe(
      { channel, provider: this.providerOf(channel), outcome, mode: modeOf(accountId) },
      seconds,
    );
  }

  recordBulkDispatched(accountId: string, n: number): void {
    if (n > 0) this.bulkDispatched.inc({ mode: modeOf(accountId) }, n);
  }

  recordWebhookAttempt(accountId: string, outcome: WebhookAttemptOutcome, seconds: number): void {
    const mode = modeOf(accountId);
    this.webhookDeliveries.inc({ outcome, mode });
    this.webhookDuration.observe({ mode }, seconds);
  }

  recordLeaseTakeover(loop: LeasedLoop, n = 1): void {
    if (n > 0) this.leaseTakeovers.inc({ loop }, n);
  }

  /** Every live status is set (0 when absent), so a series never vanishes and alerts see zeros. */
  setBulkJobs(byStatus: Record<string, number>, rowsPending: number): void {
    for (const [status, n] of Object.entries(byStatus)) this.bulkJobs.set({ status }, n);
    this.bulkRowsPending.set(rowsPending);
  }

  setWebhookOutboxPending(n: number): void {
    this.outboxPending.set(n);
  }

  /** A module's refresh of its table gauges (one cheap indexed query), run by refreshGauges. */
  addGaugeSource(name: string, refresh: () => Promise<void>): void {
    this.sources.set(name, refresh);
  }

  /** Runs every gauge source; one that fails is logged and keeps its last values. */
  async refreshGauges(): Promise<void> {
    await Promise.all(
      [...this.sources].map(([name, refresh]) =>
        refresh().catch((err: unknown) => this.log.warn({ err }, `metrics gauge source ${name} failed`)),
      ),
    );
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text exposition of every metric. */
  async scrape(): Promise<string> {
    return this.registry.metrics();
  }

  /** The adapter configured for the channel (PROVIDER_<CHANNEL>); counters reset with the process, as its config may. */
  private providerOf(channel: string): string {
    return CHANNELS.includes(channel as ChannelName)
      ? this.config.providers.byChannel[channel as ChannelName]
      : 'unknown';
  }
}
