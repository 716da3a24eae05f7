import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { AppConfig } from '../../config/app-config';
import { sql } from '../../database/sql';
import { UnitOfWork } from '../../database/unit-of-work';
import { MetricsService } from '../../metrics/metrics.service';
import type { ProviderReceipt, ReceiptIntake } from '../../providers/provider-events';
import { MessageEntity } from '../entities/message.entity';
import { messageTarget, nextPartStatus, ReceiptTarget, stepsTo } from './lifecycle-rules';
import { PendingReceipt, ProviderRef, ReceiptStore } from './receipt-store';
import { StatusTrail, TrailStep } from './status-trail';

/**
 * RECEIPT_INTAKE: the one writer of provider receipts. A receipt is matched to its message by the
 * provider id (one per SMS part) and applied in a unit of work that first locks the message row, so
 * receipts of one message (its parts, two replicas) apply one after the other: forward only,
 * duplicates and stale receipts change nothing, `read` before `delivered` passes both, a failure
 * only from `sent`. Each move bumps `sequence` and `updated_at` and leaves its history row and event
 * in the same unit. A receipt whose provider id is not recorded yet is kept (pending_receipts) for
 * RECEIPT_MATCH_WINDOW_MS and applied when the message is marked sent (or by the sweeper). Receipts
 * never touch money: a sent message was paid whatever the carrier says later.
 */
@Injectable()
export class ReceiptIntakeService implements ReceiptIntake {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: ReceiptStore,
    private readonly trail: StatusTrail,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
  ) {}

  async accept(receipts: readonly ProviderReceipt[]): Promise<void> {
    if (!receipts.length) return;
    const refs = await this.refsByProviderId(receipts.map((r) => r.providerMessageId));
    const unmatched = receipts.filter((r) => !refs.has(r.providerMessageId));
    if (unmatched.length) {
      await this.store.keepPending(unmatched, this.clock.now() + this.config.messaging.receiptMatchWindowMs);
      for (const r of unmatched) this.metrics.recordReceipt(null, r.status);
    }
    for (const r of receipts) {
      const ref = refs.get(r.providerMessageId);
      if (!ref) continue;
      const channel = await this.apply(ref, r);
      this.metrics.recordReceipt(channel, r.status);
    }
  }

  /** Receipts kept for these provider ids (of messages just marked sent), applied and dropped. */
  async applyPendingFor(providerMessageIds: string[]): Promise<number> {
    if (!providerMessageIds.length) return 0;
    return this.applyPending(await this.store.pendingFor(providerMessageIds));
  }

  /**
   * The sweeper's pass: kept receipts whose message was recorded since (a receipt stored just as the
   * send looked for it) are applied; those past their window are dropped. Returns how many it handled.
   */
  async sweep(limit: number): Promise<number> {
    const applied = await this.applyPending(await this.store.matchedPendingAcrossAccounts(limit));
    return applied + (await this.store.purgeExpired(this.clock.now()));
  }

  private async applyPending(pending: PendingReceipt[]): Promise<number> {
    if (!pending.length) return 0;
    const refs = await this.refsByProviderId(pending.map((p) => p.providerMessageId));
    const done: string[] = [];
    for (const p of pending) {
      const ref = refs.get(p.providerMessageId);
      if (!ref) continue;
      await this.apply(ref, p);
      done.push(p.id);
    }
    await this.store.deletePending(done);
    return done.length;
  }

  /** The newest ref of each provider id (an id reused by a provider long after belongs to the newer message). */
  private async refsByProviderId(ids: string[]): Promise<Map<string, ProviderRef>> {
    const byId = new Map<string, ProviderRef>();
    for (const ref of await this.store.refsOfAnyAccount([...new Set(ids)])) if (!byId.has(ref.providerMessageId)) byId.set(ref.providerMessageId, ref);
    return byId;
  }

  /** Applies one receipt to its message part; returns the message's channel (null when the message is gone). */
  private async apply(ref: ProviderRef, r: ProviderReceipt): Promise<string | null> {
    const moved = await this.uow.transaction(async () => {
      // Lock first, read after: receipts of the same message wait here and then see each other's parts.
      await this.uow.run(sql('UPDATE messages SET sequence = sequence WHERE id = ? AND account_id = ?', ref.messageId, ref.accountId));
      const row = await this.uow.manager.getRepository(MessageEntity).findOneBy({ id: ref.messageId, accountId: ref.accountId });
      if (!row) return null;
      const parts = await this.store.refsOfMessage(ref.accountId, ref.messageId);
      const part = parts.find((p) => p.providerMessageId === ref.providerMessageId);
      const next = part ? nextPartStatus(part.status, r.status) : null;
      if (!part || !next) return { row, steps: [] };
      await this.store.setPartStatus(part, next, r.providerErrorCode);
      part.status = next;
      const targets = stepsTo(row.status, messageTarget(parts.map((p) => p.status)));
      if (!targets.length) return { row, steps: [] };
      // Never before the send as we recorded it (provider clocks differ; a receipt can be quicker than our record).
      const at = { ...r, at: Math.max(r.at, Number(row.sentAt ?? 0)) };
      const steps = targets.map((status) => step(status, at));
      const after = await this.move(row, targets, at);
      if (!after) return { row, steps: [] };
      await this.trail.record([{ row: after, steps }]);
      return { row: after, steps };
    });
    if (!moved) return null;
    for (const s of moved.steps) this.metrics.recordMessage(moved.row.channel, s.status as ReceiptTarget);
    return moved.row.channel;
  }

  /** The message row moved through `targets` (conditional on the row as read under the lock); null if it changed meanwhile. */
  private async move(row: MessageEntity, targets: ReceiptTarget[], r: ProviderReceipt): Promise<MessageEntity | null> {
    const now = this.clock.now();
    const status = targets[targets.length - 1];
    const after: MessageEntity = { ...row, status, sequence: Number(row.sequence) + targets.length, updatedAt: now };
    if (targets.includes('delivered')) after.deliveredAt = row.deliveredAt ?? r.at;
    if (targets.includes('read')) after.readAt = row.readAt ?? r.at;
    if (status === 'failed') {
      after.failedAt = r.at;
      after.errorCode = r.errorCode ?? 'UNDELIVERED';
      after.errorMessage = `The provider reported the message not delivered (${r.providerStatus}${r.providerErrorCode ? `, code ${r.providerErrorCode}` : ''})`.slice(0, 500);
      after.providerErrorCode = r.providerErrorCode?.slice(0, 100) ?? null;
    }
    const changed = await this.uow.exec(
      sql(
        'UPDATE messages SET status = ?, delivered_at = ?, read_at = ?, failed_at = ?, error_code = ?, error_message = ?, provider_error_code = ?, sequence = ?, updated_at = ? WHERE id = ? AND account_id = ? AND status = ? AND sequence = ?',
        after.status, after.deliveredAt, after.readAt, after.failedAt, after.errorCode, after.errorMessage, after.providerErrorCode, after.sequence, now, row.id, row.accountId, row.status, Number(row.sequence),
      ),
    );
    return changed === 1 ? after : null;
  }
}

function step(status: ReceiptTarget, r: ProviderReceipt): TrailStep {
  return { status, at: r.at, source: 'provider', providerStatus: r.providerStatus, errorCode: status === 'failed' ? (r.errorCode ?? 'UNDELIVERED') : null };
}
