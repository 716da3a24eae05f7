import { Injectable } from '@nestjs/common';
import { insertOrAdd, query, sql, type Query, type Row } from '../../database/sql';
import { UnitOfWork } from '../../database/unit-of-work';
import type { AccountId } from '../../common/account-id';
import { usageSourceStatements } from '../../messaging/usage/usage-source.statements';

/** One day's usage of an account on one channel, purpose and paying source. */
export interface UsageRecord {
  day: string;
  channel: string;
  purpose: string;
  source: string;
  messages: number;
  parts: number;
  cost: number;
}

function toUsageRecord(r: Row): UsageRecord {
  return {
    day: String(r.day),
    channel: String(r.channel),
    purpose: String(r.purpose),
    source: String(r.source),
    messages: Number(r.messages),
    parts: Number(r.parts),
    cost: Number(r.cost),
  };
}

export const usageStatements = {
  range: (accountId: AccountId, fromDay: string, toDay: string): Query<UsageRecord> =>
    query(
      toUsageRecord,
      sql(
        'SELECT day, channel, purpose, source, messages, parts, cost FROM usage_daily WHERE account_id = ? AND day >= ? AND day <= ? ORDER BY day',
        accountId,
        fromDay,
        toDay,
      ),
    ),
  ...usageSourceStatements,
};

/** Usage records per INSERT (8 parameters each: well under every dialect's limit). */
const COUNTERS_PER_STATEMENT = 500;

/** 'YYYY-MM-DD' of a time, UTC. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * SQL of the daily usage records (usage_daily, owned by privacy). The roll-up reads settled messages
 * and marks them counted with messaging's statements (usageSourceStatements) in the same unit as it adds
 * them up, so no message is counted twice or missed.
 */
@Injectable()
export class UsageRepository {
  constructor(private readonly uow: UnitOfWork) {}

  /** Rolls up to `limit` settled messages into the records in one unit; how many it counted. */
  async rollBatch(limit: number, now: number): Promise<number> {
    return this.uow.transaction(async (tx) => {
      const rows = await tx.read(usageStatements.uncounted(limit, this.uow.capabilities.skipLocked));
      if (!rows.length) return 0;
      const groups = new Map<string, { keys: Record<string, string>; messages: number; parts: number; cost: number }>();
      for (const m of rows) {
        if (m.refunded) continue;
        const keys = {
          account_id: m.accountId,
          day: utcDay(m.createdAt),
          channel: m.channel,
          purpose: m.purpose,
          source: m.paidFrom ?? 'wallet',
        };
        const k = Object.values(keys).join('|');
        const g = groups.get(k) ?? { keys, messages: 0, parts: 0, cost: 0 };
        g.messages += 1;
        g.parts += m.segments ?? 1;
        g.cost += m.cost;
        groups.set(k, g);
      }
      // One statement, rows in key order, so two replicas' units add to shared records in the same order
      // (no deadlock cycle).
      const sorted = [...groups].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, g]) => g);
      for (let i = 0; i < sorted.length; i += COUNTERS_PER_STATEMENT)
        await tx.run(
          insertOrAdd(
            this.uow.capabilities.upsert,
            'usage_daily',
            sorted.slice(i, i + COUNTERS_PER_STATEMENT).map((g) => ({
              keys: g.keys,
              adds: { messages: g.messages, parts: g.parts, cost: g.cost },
            })),
          ),
        );
      return tx.exec(
        usageStatements.markCounted(
          rows.map((r) => r.id),
          now,
        ),
      );
    });
  }

  /** An account's records of the UTC days `fromDay`..`toDay` (both included). */
  async range(accountId: AccountId, fromDay: string, toDay: string): Promise<UsageRecord[]> {
    return this.uow.read(usageStatements.range(accountId, fromDay, toDay));
  }
}
