import { Inject, Injectable, Logger } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
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
 * The service's metrics under their published names (docs/operations.md, docs/grafana-dashboard.json).
 * Features call these named methods and never see prom-client. Gauges over tables are set by the
 * owning module's gauge source (addGaugeSource), refreshed every METRICS_REFRESH_MS, never per scrape.
 */
@Injectable()
export class MetricsService {
  private readonly log = new Logger(MetricsService.name);
  private readonly sources = new Map<string, () => Promise<void>>();
  private readonly http: Histogram<'method' | 'route' | 'status'>;
  private readonly messages: Counter<'channel' | 'provider' | 'status'>;
  private readonly providerCalls: Histogram<'channel' | 'provider' | 'outcome'>;
  private readonly bulkJobs: Gauge<'status'>;
  private readonly bulkRowsPending: Gauge;
  private readonly bulkDispatched: Counter;
  private readonly webhookDeliveries: Counter<'outcome'>;
  private readonly webhookDuration: Histogram;
  private readonly outboxPending: Gauge;
  private readonly leaseTakeovers: Counter<'loop'>;
  private readonly receipts: Counter<'provider' | 'status'>;
  private readonly fraudBlocks: Counter<'scope' | 'reason'>;
  private readonly fraudRefusals: Counter<'reason'>;
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
      help: 'Messages reaching a status (scheduled, sent, delivered, read, failed, cancelled), by channel and configured provider',
      labelNames: ['channel', 'provider', 'status'],
      registers,
    });
    this.providerCalls = new Histogram({
      name: 'provider_request_duration_seconds',
      help: 'Provider send calls by channel, provider and outcome',
      labelNames: ['channel', 'provider', 'outcome'],
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
      help: 'Bulk rows the dispatcher settled (sent or failed)',
      registers,
    });
    this.webhookDeliveries = new Counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome (delivered, retrying, failed)',
      labelNames: ['outcome'],
      registers,
    });
    this.webhookDuration = new Histogram({
      name: 'webhook_delivery_duration_seconds',
      help: 'Duration of webhook delivery attempts',
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
      help: 'Provider delivery receipts accepted, by the configured provider of their message\'s channel ("unmatched" while no message is recorded for them) and receipt status',
      labelNames: ['provider', 'status'],
      registers,
    });
    this.fraudBlocks = new Counter({
      name: 'verification_fraud_blocks_total',
      help: 'Destination prefixes blocked by the verification fraud guard, by scope (account, platform) and reason',
      labelNames: ['scope', 'reason'],
      registers,
    });
    this.fraudRefusals = new Counter({
      name: 'verification_fraud_refusals_total',
      help: 'Verification codes refused by the fraud guard (FRAUD_SUSPECTED, nothing paid), by reason',
      labelNames: ['reason'],
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

  /** A fraud block was raised (once, by the request or replica that raised it). */
  recordFraudBlock(scope: 'account' | 'platform', reason: string): void {
    this.fraudBlocks.inc({ scope, reason });
  }

  /** A verification code was refused by the fraud guard: `blocked` (a block in force) or the reason of the block it raised. */
  recordFraudRefusal(reason: string): void {
    this.fraudRefusals.inc({ reason });
  }

  recordHttpRequest(method: string, route: string, status: number, seconds: number): void {
    this.http.observe({ method, route, status: String(status) }, seconds);
  }

  /**
   * A message moved into `status` (once per move, after it is durable). A message counts once per
   * status it reaches: scheduled then sent counts under both; queued is transient and not counted.
   */
  recordMessage(channel: string, status: CountedMessageStatus, n = 1): void {
    if (n > 0) this.messages.inc({ channel, provider: this.providerOf(channel), status }, n);
  }

  /** A receipt accepted (once, as it arrives); `channel` null while no message is recorded for its provider id. */
  recordReceipt(channel: string | null, status: string, n = 1): void {
    if (n > 0) this.receipts.inc({ provider: channel === null ? 'unmatched' : this.providerOf(channel), status }, n);
  }

  observeProviderCall(channel: string, outcome: ProviderCallOutcome, seconds: number): void {
    this.providerCalls.observe({ channel, provider: this.providerOf(channel), outcome }, seconds);
  }

  recordBulkDispatched(n: number): void {
    if (n > 0) this.bulkDispatched.inc(n);
  }

  recordWebhookAttempt(outcome: WebhookAttemptOutcome, seconds: number): void {
    this.webhookDeliveries.inc({ outcome });
    this.webhookDuration.observe(seconds);
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
