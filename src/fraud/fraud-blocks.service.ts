import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { CursorCodec, Page } from '../common/cursor';
import { ApiError } from '../common/errors';
import { newId } from '../common/ids';
import { AppConfig } from '../config/app-config';
import { UnitOfWork } from '../database/unit-of-work';
import { EVENT_SINK, EventSink, EventType } from '../messaging/events/event-sink';
import { MetricsService } from '../metrics/metrics.service';
import { blockView, FraudBlockView } from './fraud-block.view';
import { BlockEnd, FraudBlockRecord, FraudBlocksRepository } from './fraud-blocks.repository';
import type { FraudReason, PrefixTally } from './fraud-verdict';
import { PREFIX_COUNTERS, PrefixCounters } from './prefix-counters';
import type { AccountId } from '../common/account-id';

export interface BlockQuery {
  cursor?: string;
  limit?: number;
  active?: boolean;
  scope?: 'account' | 'platform';
}

/**
 * Raising, lifting and expiring blocks. Each change of an account's block and its event
 * (`verification.fraud_blocked` / `verification.fraud_unblocked`) commit together; platform blocks
 * are the operator's (metric and admin listing, no account event).
 */
@Injectable()
export class FraudBlocksService {
  private readonly log = new Logger(FraudBlocksService.name);

  constructor(
    private readonly blocks: FraudBlocksRepository,
    @Inject(PREFIX_COUNTERS) private readonly counters: PrefixCounters,
    @Inject(EVENT_SINK) private readonly events: EventSink,
    private readonly uow: UnitOfWork,
    private readonly metrics: MetricsService,
    private readonly cursors: CursorCodec,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  /**
   * Raises the account's block of `prefix`, then the platform's if due; the end of the block in force
   * (this one, or one a concurrent request or replica raised first).
   */
  async raise(accountId: AccountId, prefix: string, reason: FraudReason, t: PrefixTally, now: number): Promise<number> {
    const windowMs = this.config.fraud.windowMs;
    const block: FraudBlockRecord = {
      id: newId('frb'),
      accountId,
      prefix,
      reason,
      sends: t.sends,
      verified: t.verified,
      accounts: 1,
      createdAt: now,
      until: now + windowMs,
      endedAt: null,
      endReason: null,
      endedBy: null,
    };
    const inForce = await this.open(block, 'verification.fraud_blocked');
    if (!inForce.opened) return inForce.block.until;
    const accounts = await this.blocks.accountsBlocked(prefix, now - windowMs);
    if (accounts >= this.config.fraud.platformAccounts) {
      await this.open(
        { ...block, id: newId('frb'), accountId: null, reason: 'many_accounts', accounts, sends: 0, verified: 0 },
        null,
      );
    }
    return block.until;
  }

  /** The owner lifts its account's block (a platform block is the operator's: 403). */
  async liftForAccount(accountId: AccountId, id: string, by: string): Promise<FraudBlockView> {
    const b = await this.blocks.find(id);
    if (!b || (b.accountId !== accountId && b.accountId !== null)) throw ApiError.notFound('Fraud block');
    if (b.accountId === null) throw new ApiError('FORBIDDEN', 'A platform block is lifted by the operator');
    return this.lift(b, by);
  }

  /** The operator lifts any block. */
  async liftAny(id: string): Promise<FraudBlockView> {
    const b = await this.blocks.find(id);
    if (!b) throw ApiError.notFound('Fraud block');
    return this.lift(b, 'operator');
  }

  /** Closes blocks whose time ran out (their `unblocked` event); how many. */
  async expireDue(limit = 500): Promise<number> {
    const now = this.clock.now();
    let n = 0;
    for (const b of await this.blocks.dueToExpire(now, limit)) {
      if (await this.end(b, 'expired', b.until, null)) n += 1;
    }
    return n;
  }

  async list(accountId: AccountId | undefined, q: BlockQuery): Promise<Page<FraudBlockView>> {
    const scope = `fraud-blocks:${accountId ?? '*'}`;
    const limit = q.limit ?? 50;
    const now = this.clock.now();
    const before = this.cursors.decode<{ createdAt: number; id: string }>(scope, q.cursor);
    const rows = await this.blocks.list({ accountId, scope: q.scope, active: q.active, now, before, limit: limit + 1 });
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    const hasMore = rows.length > limit;
    return {
      items: items.map((b) => blockView(b, now)),
      hasMore,
      nextCursor: hasMore && last ? this.cursors.encode(scope, { createdAt: last.createdAt, id: last.id }) : null,
    };
  }

  private async lift(b: FraudBlockRecord, by: string): Promise<FraudBlockView> {
    const now = this.clock.now();
    const closed = b.endedAt === null && b.until > now ? await this.end(b, 'lifted', now, by) : null;
    if (!closed) throw new ApiError('INVALID_STATE', 'The block is no longer in force');
    // Fresh traffic is judged afresh: the counts that raised the block would raise it again at once.
    if (b.accountId !== null) await this.counters.reset(b.accountId, b.prefix);
    return blockView(closed, now);
  }

  /**
   * Records `b`, or answers the block that holds its key: one raised concurrently (by another request
   * or replica), or one whose Redis mark was lost (marked again). A holder whose time ran out before
   * the sweep reached it is closed first, with its event, and `b` takes its place.
   */
  private async open(
    b: FraudBlockRecord,
    event: EventType | null,
  ): Promise<{ block: FraudBlockRecord; opened: boolean }> {
    for (let round = 0; round < 3; round++) {
      if (await this.record(b, event)) return { block: b, opened: true };
      const held = await this.blocks.findActive(b.accountId, b.prefix);
      if (held && held.until > b.createdAt) {
        await this.mark(held);
        return { block: held, opened: false };
      }
      if (held) await this.end(held, 'expired', held.until, null);
    }
    throw new ApiError('CONFLICT', 'The fraud block changed concurrently; retry the request');
  }

  /** Records a new block and its event in one unit; false when a block holds its key. */
  private async record(b: FraudBlockRecord, event: EventType | null): Promise<boolean> {
    const opened = await this.uow.transaction(async (tx) => {
      if (!(await this.blocks.open(b))) return false;
      if (event && b.accountId) await this.events.record(tx, [this.event(b, event, b.createdAt)]);
      return true;
    });
    if (!opened) return false;
    this.metrics.recordFraudBlock(b.accountId, b.reason);
    await this.mark(b);
    return true;
  }

  /** The block's mark in the counters (Redis). Committed already: a lost mark is set again by the next request that trips a rule. */
  private async mark(b: FraudBlockRecord): Promise<void> {
    await this.counters
      .markBlocked({ id: b.id, accountId: b.accountId, prefix: b.prefix, until: b.until })
      .catch((err: unknown) => this.log.warn({ err }, `fraud block ${b.id}: its mark was not set`));
  }

  /**
   * Ends a block that holds its key, with its `unblocked` event: the block as closed, or null when it
   * no longer held it. Its mark goes first, so a failure leaves a block the next trip marks again,
   * never a mark that outlives its block.
   */
  private async end(
    b: FraudBlockRecord,
    how: BlockEnd,
    at: number,
    by: string | null,
  ): Promise<FraudBlockRecord | null> {
    await this.counters.unmarkBlocked({ id: b.id, accountId: b.accountId, prefix: b.prefix, until: b.until });
    const closed: FraudBlockRecord = { ...b, endedAt: at, endReason: how, endedBy: by };
    return this.uow.transaction(async (tx) => {
      if (!(await this.blocks.end(b.id, how, at, by))) return null;
      if (b.accountId) await this.events.record(tx, [this.event(closed, 'verification.fraud_unblocked', at)]);
      return closed;
    });
  }

  private event(b: FraudBlockRecord, type: EventType, at: number) {
    return { accountId: b.accountId as AccountId, type, at, data: { block: blockView(b, at) } };
  }
}
