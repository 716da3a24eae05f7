import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { Clock } from '../../common/clock';
import { AppConfig } from '../../config/app-config';
import { inList, sql, SqlParam, updateFromRows } from '../../database/sql';
import { UnitOfWork } from '../../database/unit-of-work';
import { MetricsService } from '../../metrics/metrics.service';
import type { ProviderReceipt, ReceiptIntake, UndeliveredCode } from '../../providers/provider-events';
import { MessageEntity } from '../entities/message.entity';
import { messageTarget, nextPartStatus, PartStatus, ReceiptTarget, stepsTo } from './lifecycle-rules';
import { PendingReceipt, ProviderRef, ReceiptsRepository } from './receipts.repository';
import { StatusMove, StatusTrail } from './status-trail';
import type { AccountId } from '../../common/account-id';

/** Messages a unit of receipts covers at most (bounded statements). */
const CHUNK = 500;

/** A receipt given with its text for a person: replaces the composed `errorMessage` of a failure. */
type WrittenReceipt = ProviderReceipt & { errorMessage?: string | null };

interface Matched {
  ref: ProviderRef;
  receipt: WrittenReceipt;
}

/** A receipt for every part of one message (test-mode controls): what a provider would report for each. */
export interface MessageReceipt {
  status: ReceiptTarget;
  providerStatus: string;
  errorCode: UndeliveredCode | null;
  providerErrorCode: string | null;
  /** A failure's text for a person; null: the one the writer composes from the provider's words. */
  errorMessage: string | null;
  at: number;
}

/**
 * RECEIPT_INTAKE: the one writer of provider receipts. A receipt is matched to its message by the
 * provider id (one per SMS part). A batch is applied in one unit of work that first locks its
 * messages' rows, so receipts of one message (its parts, two replicas) apply one after the other:
 * forward only, duplicates and stale receipts change nothing, `read` before `delivered` passes both,
 * a failure only from `sent` (lifecycle-rules.ts). Each move bumps `sequence` and `updated_at` and
 * leaves its history rows and events in the same unit; a batch costs the same handful of statements
 * whatever its size. A receipt whose provider id is not recorded yet is kept (pending_receipts) for
 * RECEIPT_MATCH_WINDOW_MS and applied when the message is marked sent (or by the sweeper). Receipts
 * never touch money: a sent message was paid whatever the carrier says later.
 */
@Injectable()
export class ReceiptIntakeService implements ReceiptIntake {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: ReceiptsRepository,
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
      this.uow.afterCommit(() => {
        for (const r of unmatched) this.metrics.recordReceipt(null, r.status);
      });
    }
    const matched = receipts.flatMap((receipt) => {
      const ref = refs.get(receipt.providerMessageId);
      return ref ? [{ ref, receipt }] : [];
    });
    const { channels } = await this.applyAll(matched);
    this.uow.afterCommit(() => {
      for (const { ref, receipt } of matched) {
        const channel = channels.get(ref.messageId);
        this.metrics.recordReceipt(
          channel === undefined ? null : { accountId: ref.accountId, channel },
          receipt.status,
        );
      }
    });
  }

  /**
   * Applies `receipt` to every part of the message `messageId` of `accountId`, in the one unit and
   * with the rules provider receipts have (forward only, history and events with the move). True when
   * the message moved; false when it has no provider ids (never sent) or the receipt changes nothing
   * (a duplicate, a stale move, a final message).
   */
  async acceptForMessage(accountId: AccountId, messageId: string, receipt: MessageReceipt): Promise<boolean> {
    const refs = await this.store.refsOfMessages([{ id: messageId, accountId }]);
    if (!refs.length) return false;
    const { moved } = await this.applyAll(
      refs.map((ref) => ({ ref, receipt: { ...receipt, providerMessageId: ref.providerMessageId } })),
    );
    return moved.has(messageId);
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
    const matched = pending.flatMap((p) => {
      const ref = refs.get(p.providerMessageId);
      return ref ? [{ ref, receipt: p, id: p.id }] : [];
    });
    await this.applyAll(matched);
    await this.store.deletePending(matched.map((m) => m.id));
    return matched.length;
  }

  /** The newest ref of each provider id (an id reused by a provider long after belongs to the newer message). */
  private async refsByProviderId(ids: string[]): Promise<Map<string, ProviderRef>> {
    const byId = new Map<string, ProviderRef>();
    for (const ref of await this.store.refsOfAnyAccount([...new Set(ids)]))
      if (!byId.has(ref.providerMessageId)) byId.set(ref.providerMessageId, ref);
    return byId;
  }

  /**
   * Applies matched receipts in order, in units of up to CHUNK messages; returns each message's
   * channel, and the messages that moved.
   */
  private async applyAll(matched: Matched[]): Promise<{ channels: Map<string, string>; moved: Set<string> }> {
    const channels = new Map<string, string>();
    const moved = new Set<string>();
    const ids = [...new Set(matched.map((m) => m.ref.messageId))];
    for (let i = 0; i < ids.length; i += CHUNK) {
      const chunk = new Set(ids.slice(i, i + CHUNK));
      const moves = await this.uow.transaction(() =>
        this.applyChunk(
          matched.filter((m) => chunk.has(m.ref.messageId)),
          channels,
        ),
      );
      for (const { row } of moves) moved.add(row.id);
      this.uow.afterCommit(() => {
        for (const { row, steps } of moves)
          for (const s of steps) this.metrics.recordMessage(row.accountId, row.channel, s.status as ReceiptTarget);
      });
    }
    return { channels, moved };
  }

  private async applyChunk(matched: Matched[], channels: Map<string, string>): Promise<StatusMove[]> {
    const owners = [
      ...new Map(matched.map((m) => [m.ref.messageId, { id: m.ref.messageId, accountId: m.ref.accountId }])).values(),
    ].sort((a, b) => (a.id < b.id ? -1 : 1));
    const accounts = [...new Set(owners.map((o) => o.accountId))];
    // One locking read of the messages (in id order): receipts of the same messages wait here and then
    // see each other's parts. Their parts change only under this lock, so the parts read after it are current.
    const rows = new Map<string, MessageEntity>();
    const where = { id: In(owners.map((o) => o.id)), accountId: In(accounts) };
    const lock = this.uow.capabilities.rowLocks ? { mode: 'pessimistic_write' as const } : undefined;
    for (const row of await this.uow.manager.getRepository(MessageEntity).find({ where, lock, order: { id: 'ASC' } }))
      rows.set(row.id, row);
    const parts = new Map<string, ProviderRef[]>();
    for (const p of await this.store.refsOfMessages(owners)) {
      const list = parts.get(p.messageId);
      if (list) list.push(p);
      else parts.set(p.messageId, [p]);
    }
    const changedParts = new Map<ProviderRef, string | null>();
    const moves = new Map<string, StatusMove>();
    for (const { ref, receipt } of matched) {
      const row = rows.get(ref.messageId);
      const part = parts
        .get(ref.messageId)
        ?.find((p) => p.providerMessageId === ref.providerMessageId && p.accountId === row?.accountId);
      if (!row || !part) continue;
      channels.set(row.id, row.channel);
      const next = nextPartStatus(part.status, receipt.status);
      if (!next) continue;
      part.status = next;
      changedParts.set(part, receipt.providerErrorCode);
      const move = moves.get(row.id) ?? { row: { ...row }, steps: [] };
      const targets = stepsTo(
        move.row.status,
        messageTarget((parts.get(row.id) ?? []).map((p) => p.status as PartStatus)),
      );
      if (!targets.length) continue;
      advance(move, targets, receipt, this.clock.now());
      moves.set(row.id, move);
    }
    await this.store.setPartStatuses(
      [...changedParts].map(([ref, providerErrorCode]) => ({ ref, status: ref.status, providerErrorCode })),
    );
    const moved = [...moves.values()];
    await this.writeRows(moved.map((m) => m.row));
    await this.trail.record(moved);
    return moved;
  }

  /** The moved rows in one UPDATE (their rows are locked by this unit), each row's values looked up by its id. */
  private async writeRows(rows: MessageEntity[]): Promise<void> {
    if (!rows.length) return;
    const cols: [string, (m: MessageEntity) => SqlParam][] = [
      ['status', (m) => m.status],
      ['delivered_at', (m) => m.deliveredAt],
      ['read_at', (m) => m.readAt],
      ['failed_at', (m) => m.failedAt],
      ['error_code', (m) => m.errorCode],
      ['error_message', (m) => m.errorMessage],
      ['provider_error_code', (m) => m.providerErrorCode],
      ['sequence', (m) => m.sequence],
      ['updated_at', (m) => m.updatedAt],
    ];
    const accounts = [...new Set(rows.map((m) => m.accountId))];
    await this.uow.run(
      updateFromRows(
        this.uow.capabilities.updateFrom,
        'messages',
        ['id'],
        cols.map(([col]) => col),
        rows.map((m) => [m.id, ...cols.map(([, get]) => get(m))]),
        sql(`messages.account_id IN (${inList(accounts.length)})`, ...accounts),
      ),
    );
  }
}

/** Moves the message (a copy of its row) through `targets` as this receipt says; the steps join its trail. */
function advance(move: StatusMove, targets: ReceiptTarget[], r: WrittenReceipt, now: number): void {
  const m = move.row;
  // Never before the send as we recorded it (provider clocks differ; a receipt can be quicker than our record).
  const at = Math.max(r.at, Number(m.sentAt ?? 0));
  for (const status of targets) {
    m.status = status;
    if (status === 'delivered') m.deliveredAt = m.deliveredAt ?? at;
    if (status === 'read') m.readAt = m.readAt ?? at;
    if (status === 'failed') {
      m.failedAt = at;
      m.errorCode = r.errorCode ?? 'UNDELIVERED';
      m.errorMessage = (
        r.errorMessage ??
        `The provider reported the message not delivered (${r.providerStatus}${r.providerErrorCode ? `, code ${r.providerErrorCode}` : ''})`
      ).slice(0, 500);
      m.providerErrorCode = r.providerErrorCode?.slice(0, 100) ?? null;
    }
    move.steps.push({
      status,
      at,
      source: 'provider',
      providerStatus: r.providerStatus,
      errorCode: status === 'failed' ? m.errorCode : null,
    });
  }
  m.sequence = Number(m.sequence) + targets.length;
  m.updatedAt = now;
}
