import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { AppConfig } from '../config/app-config';
import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { SecretBox } from '../common/secret-box';
import { SinglePeriodicJob } from '../common/single-periodic-job';
import { MetricsService } from '../metrics/metrics.service';
import { ShutdownCoordinator } from '../common/shutdown/shutdown-coordinator';
import { EventEndpointsRepository } from './event-endpoints.repository';
import { MAX_ATTEMPTS, retryDelayMs } from './webhook-backoff';
import { PostOutcome, WebhookHttpClient } from './webhook-http.client';
import { AttemptLimits, AttemptRecord, ClaimedDelivery, WebhookOutboxRepository } from './webhook-outbox.repository';
import { attemptHeaders, EndpointSigning, endpointSigning } from './webhook-request';

const INTERVAL_NAME = 'webhook-delivery';

interface Queued {
  row: ClaimedDelivery;
  signing: EndpointSigning | undefined;
}
/** Outcomes written per unit, at most. */
const RECORD_CHUNK = 500;
/** How long an outcome waits for others to be written with it. */
const WRITE_DELAY_MS = 5;

/**
 * The outbox loop. A tick leases due deliveries in batches (one conditional UPDATE for many rows),
 * sends them concurrently up to WEBHOOK_DELIVERY_BATCH per replica and keeps claiming as slots
 * free up; outcomes are written in batches, fenced by the lease, so replicas never send one attempt
 * twice and a crashed replica's rows come back when its lease expires.
 */
@Injectable()
export class WebhookDeliveryWorker implements OnApplicationBootstrap {
  private readonly logger = new Logger(WebhookDeliveryWorker.name);
  private readonly owner = `${hostname().slice(0, 30)}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly cap: number;
  private readonly limits: AttemptLimits;
  private nextHousekeepingAt = 0;
  private readonly loop = new SinglePeriodicJob(INTERVAL_NAME, () => this.runOnce());
  /** Sends in flight; a slow receiver holds one slot, not the whole loop. */
  private readonly inFlight = new Set<Promise<void>>();
  /** Claimed, waiting for a slot. */
  private readonly queue: Queued[] = [];
  /** Outcomes waiting for the next batched write. */
  private readonly outcomes: { rec: AttemptRecord; endpointId: string | null }[] = [];
  private writing: Promise<void> | null = null;
  private writeTimer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly outbox: WebhookOutboxRepository,
    private readonly endpoints: EventEndpointsRepository,
    private readonly http: WebhookHttpClient,
    private readonly secretBox: SecretBox,
    private readonly scheduler: SchedulerRegistry,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
    shutdown: ShutdownCoordinator,
  ) {
    // Shutdown: POSTs in flight finish and their attempts are recorded; nothing new is claimed.
    shutdown.register({
      name: 'webhook-delivery',
      stopClaiming: () => {
        this.stopped = true;
        this.loop.halt();
      },
      drain: async () => {
        await this.loop.idle();
        await Promise.all([...this.inFlight]);
        await this.flushed();
      },
      releaseLeases: async () => {
        await this.outbox.releaseUnsent(
          this.owner,
          this.queue.splice(0).map((q) => q.row.id),
        );
        await this.outbox.release(this.owner);
      },
    });
    this.cap = config.webhooks.batch;
    this.limits = { spec: MAX_ATTEMPTS, endpoint: config.webhooks.endpointRetryScheduleMs.length };
  }

  onApplicationBootstrap(): void {
    if (this.config.schedulers.enabled) this.loop.start(this.scheduler, this.config.webhooks.deliveryIntervalMs);
  }

  /** One claiming pass (skipped while the previous one runs); sends continue in the background. Public so tests can drive it. */
  async tick(): Promise<void> {
    await this.loop.tick();
  }

  private async runOnce(): Promise<void> {
    await this.housekeeping(this.clock.now());
    // Keep claiming while there is due work, in batches, one batch ahead of the sends: up to 2x the
    // cap is leased (at most one cap waiting, so a queued row is sent within one round of sends,
    // well inside its lease), and the next claim is made while the sends of the last one run.
    const most = 2 * this.cap;
    const refillAt = Math.ceil(this.cap / 2);
    while (!this.stopped) {
      while (this.inFlight.size + this.queue.length > most - refillAt) await Promise.race(this.inFlight);
      const room = most - this.inFlight.size - this.queue.length;
      const rows = await this.outbox.claimDue(
        this.owner,
        this.clock.now(),
        this.config.webhooks.leaseMs,
        room,
        this.limits,
      );
      if (!rows.length) return;
      this.metrics.recordLeaseTakeover('webhook_delivery', rows.filter((r) => r.takeover).length);
      const found = await this.endpoints.keysOfAny([
        ...new Set(rows.flatMap((r) => (r.endpointId ? [r.endpointId] : []))),
      ]);
      const signing = new Map<string, EndpointSigning>();
      for (const row of rows) {
        if (row.endpointId && !signing.has(row.endpointId))
          signing.set(row.endpointId, endpointSigning(found.get(row.endpointId), this.secretBox, this.clock.now()));
        this.queue.push({ row, signing: row.endpointId ? signing.get(row.endpointId) : undefined });
      }
      this.pump();
      if (rows.length < room) return;
    }
  }

  /** Starts queued sends while slots are free (also as each send ends). */
  private pump(): void {
    while (!this.stopped && this.inFlight.size < this.cap && this.queue.length) {
      const { row, signing } = this.queue.shift() as Queued;
      const send: Promise<void> = this.deliver(row, signing)
        .catch((err: unknown) => this.logger.error({ err, deliveryId: row.id }, 'webhook delivery failed unexpectedly'))
        .finally(() => {
          this.inFlight.delete(send);
          this.pump();
        });
      this.inFlight.add(send);
    }
  }

  private async deliver(row: ClaimedDelivery, signing: EndpointSigning | undefined): Promise<void> {
    const startedAt = this.clock.now();
    let outcome: PostOutcome;
    try {
      const req = attemptHeaders(row, signing, this.secretBox, startedAt);
      outcome =
        'refused' in req
          ? { ok: false, httpStatus: null, durationMs: 0, error: req.refused, refused: true }
          : await this.http.post(row.url, req.headers, row.body, this.config.webhooks.timeoutMs);
    } catch (err) {
      // Never log the headers or the secret; the message of an unexpected failure is enough.
      outcome = {
        ok: false,
        httpStatus: null,
        durationMs: this.clock.now() - startedAt,
        error: `internal: ${(err as Error).message}`.slice(0, 480),
        refused: false,
      };
    }
    this.outcomes.push({ rec: this.toRecord(row, startedAt, outcome), endpointId: row.endpointId });
    // Outcomes are written together: a short wait gathers those of the sends ending meanwhile.
    if (this.writing || this.writeTimer) return;
    this.writeTimer = setTimeout(() => {
      this.writeTimer = null;
      this.writing = this.writeOutcomes().finally(() => (this.writing = null));
    }, WRITE_DELAY_MS);
  }

  /** What the attempt means for the delivery: delivered, failed (attempts spent or target refused), or pending until the next wait. */
  private toRecord(row: ClaimedDelivery, startedAt: number, o: PostOutcome): AttemptRecord {
    const schedule = this.config.webhooks.endpointRetryScheduleMs;
    const max = row.endpointId ? schedule.length : MAX_ATTEMPTS;
    const status = o.ok ? 'delivered' : o.refused || row.attemptNo >= max ? 'failed' : 'pending';
    const now = this.clock.now();
    const wait = row.endpointId
      ? (schedule[row.attemptNo] ?? 0)
      : retryDelayMs(row.attemptNo, this.config.webhooks.retryBaseMs);
    this.metrics.recordWebhookAttempt(
      row.accountId,
      status === 'pending' ? 'retrying' : status,
      Math.max(0, o.durationMs) / 1000,
    );
    return {
      id: newId('wha'),
      deliveryId: row.id,
      attemptNo: row.attemptNo,
      startedAt,
      durationMs: Math.max(0, o.durationMs),
      httpStatus: o.httpStatus,
      error: o.error,
      success: o.ok,
      status,
      nextAttemptAt: status === 'pending' ? now + wait : null,
    };
  }

  /** Writes buffered outcomes, a chunk per unit, until none is left (one writer at a time). */
  private async writeOutcomes(): Promise<void> {
    while (this.outcomes.length) {
      const chunk = this.outcomes.splice(0, RECORD_CHUNK);
      try {
        await this.writeChunk(chunk);
      } catch (err) {
        // One bad row must not lose the others: write them one by one.
        this.logger.warn({ err }, 'batched webhook outcome write failed; writing one by one');
        for (const one of chunk)
          await this.writeChunk([one]).catch((e: unknown) =>
            this.logger.error({ err: e, deliveryId: one.rec.deliveryId }, 'webhook outcome not recorded'),
          );
      }
    }
  }

  private async writeChunk(chunk: { rec: AttemptRecord; endpointId: string | null }[]): Promise<void> {
    const delivered = new Set<string>();
    const failed = new Map<string, number>();
    for (const { rec, endpointId } of chunk) {
      if (!endpointId) continue;
      if (rec.status === 'delivered') delivered.add(endpointId);
      else if (rec.status === 'failed') failed.set(endpointId, (failed.get(endpointId) ?? 0) + 1);
    }
    const threshold = this.config.webhooks.disableAfterFailures;
    const now = this.clock.now();
    const lost = await this.outbox.recordAttempts(
      this.owner,
      now,
      chunk.map((c) => c.rec),
      delivered.size || failed.size
        ? (tx) =>
            this.endpoints.countOutcomes(
              tx,
              [...delivered],
              failed,
              threshold,
              `Disabled after ${threshold} consecutive failed deliveries`,
              now,
            )
        : undefined,
    );
    // Lost lease (we outlived WEBHOOK_LEASE_MS): another replica owns the row now and decides its fate.
    if (lost) this.logger.warn({ lost }, 'webhook lease lost before the attempt was recorded');
  }

  /** Resolves once every buffered outcome is written. */
  private async flushed(): Promise<void> {
    if (this.writeTimer) {
      clearTimeout(this.writeTimer);
      this.writeTimer = null;
      this.writing ??= this.writeOutcomes().finally(() => (this.writing = null));
    }
    while (this.writing) await this.writing;
  }

  /**
   * Row sweeps that need not run every tick: once per WEBHOOK_PRUNE_INTERVAL_MS, abandoned last
   * attempts are failed (they are never claimed again, so a late verdict only delays the status) and
   * old deliveries pruned.
   */
  private async housekeeping(now: number): Promise<void> {
    if (now < this.nextHousekeepingAt) return;
    this.nextHousekeepingAt = now + this.config.webhooks.pruneIntervalMs;
    await this.outbox.failAbandoned(now, this.limits);
    await this.outbox.pruneOld(now - this.config.webhooks.retentionMs);
  }
}
