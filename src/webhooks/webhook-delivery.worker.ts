import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Brackets, DataSource, In } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { SecretBox } from '../common/secret-box';
import { SinglePeriodicJob } from '../common/single-periodic-job';
import { MetricsService } from '../metrics/metrics.service';
import { ShutdownCoordinator } from '../common/shutdown/shutdown-coordinator';
import { WebhookAttemptEntity } from './entities/webhook-attempt.entity';
import { WebhookDeliveryEntity } from './entities/webhook-delivery.entity';
import { MAX_ATTEMPTS, retryDelayMs } from './webhook-backoff';
import { PostOutcome, WebhookHttpClient } from './webhook-http.client';
import { UnitOfWork } from '../database/unit-of-work';

const INTERVAL_NAME = 'webhook-delivery';

/**
 * The outbox loop. Each tick takes a bounded batch of due deliveries, each by a lease (conditional
 * UPDATE that also counts the attempt), POSTs them, and records the attempt fenced by the lease, so
 * replicas never send the same attempt twice and a crashed replica's rows come back when its lease expires.
 */
@Injectable()
export class WebhookDeliveryWorker implements OnApplicationBootstrap {
  private readonly logger = new Logger(WebhookDeliveryWorker.name);
  private readonly owner = `${hostname().slice(0, 30)}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly intervalMs: number;
  private readonly timeoutMs: number;
  private readonly leaseMs: number;
  private readonly batch: number;
  private readonly retentionMs: number;
  private readonly housekeepingEveryMs: number;
  private nextHousekeepingAt = 0;
  private readonly loop = new SinglePeriodicJob(INTERVAL_NAME, () => this.runOnce());
  /** Sends in flight; a slow receiver holds one slot, not the whole loop. */
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
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
      },
      releaseLeases: () => this.releaseLeases(),
    });
    this.intervalMs = config.webhooks.deliveryIntervalMs;
    this.timeoutMs = config.webhooks.timeoutMs;
    this.leaseMs = config.webhooks.leaseMs;
    // Also the cap on concurrent sends per replica.
    this.batch = config.webhooks.batch;
    this.retentionMs = config.webhooks.retentionMs;
    this.housekeepingEveryMs = config.webhooks.pruneIntervalMs;
  }

  onApplicationBootstrap(): void {
    if (this.config.schedulers.enabled) this.loop.start(this.scheduler, this.intervalMs);
  }

  /** Deliveries claimed but not recorded (a recording that failed): due again at once, on any replica. */
  private async releaseLeases(): Promise<void> {
    await this.dataSource.manager
      .createQueryBuilder()
      .update(WebhookDeliveryEntity)
      .set({ leaseOwner: null, leaseExpiresAt: null })
      .where('lease_owner = :owner AND status = :pending', { owner: this.owner, pending: 'pending' })
      .execute();
  }

  /** One claiming pass (skipped while the previous one runs); sends continue in the background. Public so tests can drive it. */
  async tick(): Promise<void> {
    await this.loop.tick();
  }

  private async runOnce(): Promise<void> {
    if (this.stopped) return;
    const now = this.clock.now();
    await this.housekeeping(now);
    if (this.inFlight.size >= this.batch) return;
    const due = await this.dataSource.manager
      .createQueryBuilder(WebhookDeliveryEntity, 'd')
      .select('d.id', 'id')
      .addSelect('d.leaseExpiresAt', 'leaseExpiresAt')
      .where('d.status = :pending', { pending: 'pending' })
      .andWhere('d.nextAttemptAt <= :now', { now })
      .andWhere('d.attemptCount < :max', { max: MAX_ATTEMPTS })
      .andWhere(new Brackets((q) => q.where('d.leaseExpiresAt IS NULL').orWhere('d.leaseExpiresAt < :now', { now })))
      .orderBy('d.nextAttemptAt', 'ASC')
      .limit(this.batch - this.inFlight.size)
      .getRawMany<{ id: string; leaseExpiresAt: unknown }>();
    for (const { id, leaseExpiresAt } of due) {
      if (this.stopped || this.inFlight.size >= this.batch) break;
      const row = await this.claim(id, now);
      if (!row) continue;
      // A recorded attempt clears the lease: one still set is an attempt whose replica died mid-send.
      if (leaseExpiresAt !== null) this.metrics.recordLeaseTakeover('webhook_delivery');
      const send: Promise<void> = this.deliver(row)
        .catch((err: unknown) => this.logger.error({ err, deliveryId: row.id }, 'webhook delivery failed unexpectedly'))
        .finally(() => this.inFlight.delete(send));
      this.inFlight.add(send);
    }
  }

  /** Conditional UPDATE: only one replica can move a free (or expired) lease to itself. */
  private async claim(id: string, now: number): Promise<WebhookDeliveryEntity | null> {
    const res = await this.dataSource.manager
      .createQueryBuilder()
      .update(WebhookDeliveryEntity)
      .set({ leaseOwner: this.owner, leaseExpiresAt: now + this.leaseMs, attemptCount: () => 'attempt_count + 1', updatedAt: now })
      .where('id = :id AND status = :pending AND attempt_count < :max', { id, pending: 'pending', max: MAX_ATTEMPTS })
      .andWhere(new Brackets((q) => q.where('lease_expires_at IS NULL').orWhere('lease_expires_at < :now', { now })))
      .execute();
    if (res.affected !== 1) return null;
    return this.dataSource.manager.findOneBy(WebhookDeliveryEntity, { id, leaseOwner: this.owner });
  }

  private async deliver(row: WebhookDeliveryEntity): Promise<void> {
    const startedAt = this.clock.now();
    let outcome: PostOutcome;
    try {
      const secret = this.secretBox.open(row.sealedSecret);
      const headers: Record<string, string> = {
        'Content-Type': 'application/json',
        Authorization: `Bearer ${secret}`,
        'X-Service-Event': row.event,
        'X-Service-Delivery-Id': row.id,
        'User-Agent': 'messaging-service-webhooks/1',
      };
      if (row.apiKeyHeader) headers['X-API-Key'] = secret;
      outcome = await this.http.post(row.url, headers, row.body, this.timeoutMs);
    } catch (err) {
      // Never log the headers or the secret; the message of an unexpected failure is enough.
      outcome = { ok: false, httpStatus: null, durationMs: this.clock.now() - startedAt, error: `internal: ${(err as Error).message}`.slice(0, 480), refused: false };
    }
    await this.record(row, startedAt, outcome);
  }

  /**
   * Logs the attempt (it happened, whatever follows) and moves the delivery on, fenced by the lease,
   * in one unit of work.
   */
  private async record(row: WebhookDeliveryEntity, startedAt: number, o: PostOutcome): Promise<void> {
    const now = this.clock.now();
    const exhausted = !o.ok && row.attemptCount >= MAX_ATTEMPTS;
    const status = o.ok ? 'delivered' : exhausted || o.refused ? 'failed' : 'pending';
    this.metrics.recordWebhookAttempt(status === 'pending' ? 'retrying' : status, Math.max(0, o.durationMs) / 1000);
    const moved = await this.uow.transaction(async ({ manager: em }) => {
      await em.insert(WebhookAttemptEntity, {
        id: newId('wha'),
        deliveryId: row.id,
        attemptNo: row.attemptCount,
        startedAt,
        durationMs: Math.max(0, o.durationMs),
        httpStatus: o.httpStatus,
        error: o.error,
        success: o.ok,
      });
      const res = await em
        .createQueryBuilder()
        .update(WebhookDeliveryEntity)
        .set({
          status,
          leaseOwner: null,
          leaseExpiresAt: null,
          lastHttpStatus: o.httpStatus,
          lastError: o.error,
          updatedAt: now,
          completedAt: status === 'pending' ? null : now,
          ...(status === 'pending' ? { nextAttemptAt: now + retryDelayMs(row.attemptCount, this.config.webhooks.retryBaseMs) } : {}),
        })
        .where('id = :id AND lease_owner = :owner', { id: row.id, owner: this.owner })
        .execute();
      return res.affected === 1;
    });
    // Lost lease (we outlived WEBHOOK_LEASE_MS): another replica owns the row now and decides its fate.
    if (!moved) this.logger.warn({ deliveryId: row.id }, 'webhook lease lost before the attempt was recorded');
  }

  /**
   * Row sweeps that need not run every tick: once per WEBHOOK_PRUNE_INTERVAL_MS, abandoned last
   * attempts are failed (they are never claimed again, so a late verdict only delays the status) and
   * old deliveries pruned.
   */
  private async housekeeping(now: number): Promise<void> {
    if (now < this.nextHousekeepingAt) return;
    this.nextHousekeepingAt = now + this.housekeepingEveryMs;
    await this.failAbandoned(now);
    await this.pruneOld(now);
  }

  /** Finished deliveries older than WEBHOOK_RETENTION_DAYS go (with their attempts), a bounded chunk per pass. */
  private async pruneOld(now: number): Promise<void> {
    const old = await this.dataSource.manager
      .createQueryBuilder(WebhookDeliveryEntity, 'd')
      .select('d.id', 'id')
      .where('d.status IN (:...done)', { done: ['delivered', 'failed'] })
      .andWhere('d.completedAt < :cutoff', { cutoff: now - this.retentionMs })
      .limit(1000)
      .getRawMany<{ id: string }>();
    if (old.length === 0) return;
    const ids = old.map((r) => r.id);
    await this.dataSource.manager.delete(WebhookAttemptEntity, { deliveryId: In(ids) });
    await this.dataSource.manager.delete(WebhookDeliveryEntity, { id: In(ids) });
  }

  /** A replica died holding the last attempt: once its lease expires the delivery is failed. */
  private async failAbandoned(now: number): Promise<void> {
    await this.dataSource.manager
      .createQueryBuilder()
      .update(WebhookDeliveryEntity)
      .set({ status: 'failed', leaseOwner: null, leaseExpiresAt: null, lastError: 'attempt interrupted (lease expired)', updatedAt: now, completedAt: now })
      .where('status = :pending AND attempt_count >= :max AND lease_expires_at < :now', { pending: 'pending', max: MAX_ATTEMPTS, now })
      .execute();
  }
}
