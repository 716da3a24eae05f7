import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { AppConfig } from '../config/app-config';
import type { Tx } from '../database/unit-of-work';
import type { DomainEvent, EventSink } from '../messaging/events/event-sink';
import { eventBody } from './event-body';
import { matchesEvent } from './event-filter';
import { EventEndpointsRepository, Subscription } from './event-endpoints.repository';
import { NewDelivery, WebhookOutboxRepository } from './webhook-outbox.repository';
import type { AccountId } from '../common/account-id';

/** How long a replica trusts its copy of an account's subscriptions: a new endpoint gets events within it. */
export const SUBSCRIPTIONS_TTL_MS = 1000;

/**
 * The EVENT_SINK port: fans events out to the accounts' enabled event endpoints whose `events`
 * match, as outbox rows in the caller's transaction. Per call: at most one read of subscriptions
 * (only for accounts not seen in the last second) and one multi-row INSERT; an account without
 * endpoints costs a map lookup.
 */
@Injectable()
export class OutboxEventSink implements EventSink {
  private readonly cache = new Map<string, { at: number; subs: Subscription[] }>();

  constructor(
    private readonly endpoints: EventEndpointsRepository,
    private readonly outbox: WebhookOutboxRepository,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  async record(tx: Tx, events: readonly DomainEvent[]): Promise<void> {
    if (!events.length) return;
    const subs = await this.subscriptionsOf(
      tx,
      events.map((e) => e.accountId),
    );
    if (!subs.size) return;
    const now = this.clock.now();
    const firstWait = this.config.webhooks.endpointRetryScheduleMs[0] ?? 0;
    const rows: NewDelivery[] = [];
    for (const e of events) {
      const targets = subs.get(e.accountId);
      if (!targets) continue;
      let body: string | null = null;
      for (const s of targets) {
        if (!matchesEvent(s.events, e.type)) continue;
        body ??= eventBody(e.accountId, { type: e.type, timestamp: new Date(e.at).toISOString(), data: e.data });
        const id = newId('whd');
        rows.push({
          id,
          webhookId: id,
          accountId: e.accountId,
          event: e.type,
          endpointId: s.id,
          url: s.url,
          body,
          sealedSecret: '',
          apiKeyHeader: false,
          nextAttemptAt: now + firstWait,
          createdAt: now,
        });
      }
    }
    if (rows.length) await this.outbox.insert(tx, rows);
  }

  async listeners(tx: Tx, accountIds: readonly AccountId[]): Promise<ReadonlySet<string>> {
    return new Set((await this.subscriptionsOf(tx, accountIds)).keys());
  }

  /** A change on this replica is seen at once here (other replicas within the TTL). */
  forget(accountId: AccountId): void {
    this.cache.delete(accountId);
  }

  /** Accounts with at least one enabled endpoint -> their endpoints. */
  private async subscriptionsOf(tx: Tx, accountIds: readonly AccountId[]): Promise<Map<string, Subscription[]>> {
    const now = Date.now();
    const out = new Map<string, Subscription[]>();
    const missing: AccountId[] = [];
    for (const accountId of new Set(accountIds)) {
      const hit = this.cache.get(accountId);
      if (hit && now - hit.at < SUBSCRIPTIONS_TTL_MS) {
        if (hit.subs.length) out.set(accountId, hit.subs);
      } else missing.push(accountId);
    }
    if (!missing.length) return out;
    const found = await this.endpoints.enabledOf(tx, missing);
    for (const accountId of missing) {
      const subs = found.filter((s) => s.accountId === accountId);
      this.cache.set(accountId, { at: now, subs });
      if (subs.length) out.set(accountId, subs);
    }
    if (this.cache.size > 10_000) this.cache.clear();
    return out;
  }
}
