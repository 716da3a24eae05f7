import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Clock } from '../../common/clock';
import { ShutdownCoordinator } from '../../common/shutdown/shutdown-coordinator';
import { SinglePeriodicJob } from '../../common/single-periodic-job';
import { AppConfig, ChannelName } from '../../config/app-config';
import type { SandboxConfig } from '../../config/providers.config';
import { decoders, inList, query, Row, sql } from '../../database/sql';
import { UnitOfWork } from '../../database/unit-of-work';
import { ProviderReceipt, RECEIPT_INTAKE, ReceiptIntake } from '../provider-events';

/** Chat channels: the device also reports the message read. */
const READ_CHANNELS: readonly string[] = ['chatapp', 'chatapp_web', 'messaging_bot'] satisfies ChannelName[];

/** A phone number ending in 0009, or an email whose local part starts with `undeliverable`: sent, then failed (UNDELIVERED). */
export function sandboxUndeliverable(to: string): boolean {
  return /0009$/.test(to) || (to.includes('@') && /^undeliverable/i.test(to.split('@')[0] ?? ''));
}

/** The first simulated receipt of a message the sandbox took (`send` writes it with the delivery row: no extra statement). */
export function firstSandboxReceipt(
  to: string,
  sentAt: number,
  config: SandboxConfig,
  instant = false,
): { stage: 'delivered' | 'failed'; dueAt: number } {
  return {
    stage: sandboxUndeliverable(to) ? 'failed' : 'delivered',
    dueAt: sentAt + (instant ? 0 : config.deliveredAfterMs),
  };
}

/**
 * The sandbox's simulated receipts: every sent message gets `delivered` SANDBOX_DELIVERED_AFTER_MS
 * after its send, chat channels then `read` SANDBOX_READ_AFTER_MS after it, the documented
 * recipients `failed` / UNDELIVERED instead. Due receipts are columns of the sandbox's delivery
 * rows (durable, shared by replicas); a replica takes a batch of due rows under row locks, hands
 * their receipts to RECEIPT_INTAKE (which applies them idempotently) and moves each row to its next
 * receipt or to none, all in one unit. The receipt_lease_* columns are written by earlier versions
 * only: a row one of them still holds during a rolling upgrade is left until its lease ends.
 */
@Injectable()
export class SandboxReceipts implements OnApplicationBootstrap {
  private readonly job = new SinglePeriodicJob('providers.sandbox-receipts', () => this.runOnce());
  private readonly sandbox: SandboxConfig;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly scheduler: SchedulerRegistry,
    @Inject(RECEIPT_INTAKE) private readonly intake: ReceiptIntake,
    private readonly config: AppConfig,
    shutdown: ShutdownCoordinator,
  ) {
    this.sandbox = config.sandbox;
    shutdown.register({ name: 'sandbox-receipts', stopClaiming: () => this.job.halt(), drain: () => this.job.idle() });
  }

  onApplicationBootstrap(): void {
    if (this.config.schedulers.enabled) this.job.start(this.scheduler, this.sandbox.receiptTickMs);
  }

  async tick(): Promise<number | undefined> {
    return this.job.tick();
  }

  /**
   * One pass: the due receipts of up to SANDBOX_RECEIPT_BATCH messages; returns how many it sent.
   * The due rows are found first, then taken in one unit by a locking read of their ids (a replica
   * busy with a row skips it): their receipts go to RECEIPT_INTAKE and the rows move on in the same
   * unit, so a crash rolls all of it back and the rows are due again. The ids are looked up by key,
   * so the read locks those rows and no range new deliveries are written into.
   */
  async runOnce(): Promise<number> {
    const now = this.clock.now();
    // Due now, and not held by an earlier version's lease.
    const dueNow = sql(
      'receipt_due_at <= ? AND (receipt_lease_expires_at IS NULL OR receipt_lease_expires_at < ?)',
      now,
      now,
    );
    const ids = await this.uow.read(
      query(
        decoders.id,
        sql(
          `SELECT id FROM sandbox_deliveries WHERE ${dueNow.sql} ORDER BY receipt_due_at LIMIT ${Math.floor(this.sandbox.receiptBatch)}`,
          ...dueNow.params,
        ),
      ),
    );
    if (!ids.length) return 0;
    const lock = this.uow.capabilities.skipLocked ? ' FOR UPDATE SKIP LOCKED' : '';
    return this.uow.transaction(async () => {
      const mine = await this.uow.read(
        query(
          toDueDelivery,
          sql(
            `SELECT id, channel, provider_message_id, receipt_stage, receipt_due_at FROM sandbox_deliveries WHERE id IN (${inList(ids.length)}) AND ${dueNow.sql}${lock}`,
            ...ids,
            ...dueNow.params,
          ),
        ),
      );
      if (!mine.length) return 0;
      await this.intake.accept(mine.map(receiptOf));
      await this.advance(mine);
      return mine.length;
    });
  }

  /** Each row (locked by this unit) to its next receipt (`read` for a delivered chat message) or to none; in two UPDATEs. */
  private async advance(rows: DueDelivery[]): Promise<void> {
    const toRead = rows.filter((r) => r.stage === 'delivered' && READ_CHANNELS.includes(r.channel));
    const reading = new Set(toRead);
    const done = rows.filter((r) => !reading.has(r));
    if (toRead.length) {
      await this.uow.run(
        sql(
          `UPDATE sandbox_deliveries SET receipt_stage = 'read', receipt_due_at = delivered_at + CASE WHEN instant_receipts = 1 THEN 0 ELSE ? END WHERE id IN (${inList(toRead.length)})`,
          this.sandbox.readAfterMs,
          ...toRead.map((r) => r.id),
        ),
      );
    }
    if (done.length) {
      await this.uow.run(
        sql(
          `UPDATE sandbox_deliveries SET receipt_stage = NULL, receipt_due_at = NULL WHERE id IN (${inList(done.length)})`,
          ...done.map((r) => r.id),
        ),
      );
    }
  }
}

/** A delivery row whose receipt is due, as the unit that sends it reads it. */
interface DueDelivery {
  id: string;
  channel: string;
  /** The receipt due (`delivered`, `read` or `failed`). */
  stage: string;
  providerMessageId: string;
  dueAt: number;
}

function toDueDelivery(r: Row): DueDelivery {
  return {
    id: String(r.id),
    channel: String(r.channel),
    stage: String(r.receipt_stage),
    providerMessageId: String(r.provider_message_id),
    dueAt: Number(r.receipt_due_at),
  };
}

function receiptOf(d: DueDelivery): ProviderReceipt {
  const { stage, providerMessageId } = d;
  const at = d.dueAt;
  if (stage === 'failed')
    return {
      providerMessageId,
      status: 'failed',
      providerStatus: 'undeliverable',
      errorCode: 'UNDELIVERED',
      providerErrorCode: 'SBX-UNDELIVERABLE',
      at,
    };
  return {
    providerMessageId,
    status: stage === 'read' ? 'read' : 'delivered',
    providerStatus: stage === 'read' ? 'read' : 'delivered',
    errorCode: null,
    providerErrorCode: null,
    at,
  };
}
