import { Injectable } from '@nestjs/common';
import { inList, insertOrAdd, sql, Stmt } from '../../database/sql';
import { UnitOfWork } from '../../database/unit-of-work';
import { AccountId, accountIdOf } from '../../common/account-id';

/** Statuses past which a message's payment no longer changes (a refunded failure counts nothing). */
const SETTLED = `('sent', 'delivered', 'read', 'failed', 'cancelled')`;

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

/** A settled message not yet counted, as the roll-up reads it. */
interface UncountedMessage {
  id: string;
  accountId: AccountId;
  channel: string;
  purpose: string;
  createdAt: number;
  paidFrom: string | null;
  cost: number;
  segments: number | null;
  refunded: boolean;
}

export const usageStatements = {
  /** Settled messages not counted yet (ix_messages_usage_pending); rows a sender holds are skipped. */
  uncounted: (limit: number, skipLocked: boolean): Stmt =>
    sql(
      `SELECT id, account_id, channel, purpose, created_at, paid_from, cost, segments, refunded_at FROM messages WHERE usage_counted_at IS NULL AND status IN ${SETTLED} LIMIT ${limit}${skipLocked ? ' FOR UPDATE SKIP LOCKED' : ''}`,
    ),
  markCounted: (ids: string[], now: number): Stmt =>
    sql(
      `UPDATE messages SET usage_counted_at = ? WHERE id IN (${inList(ids.length)}) AND usage_counted_at IS NULL`,
      now,
      ...ids,
    ),
  range: (accountId: AccountId, fromDay: string, toDay: string): Stmt =>
    sql(
      'SELECT day, channel, purpose, source, messages, parts, cost FROM usage_daily WHERE account_id = ? AND day >= ? AND day <= ? ORDER BY day',
      accountId,
      fromDay,
      toDay,
    ),
};

/** 'YYYY-MM-DD' of a time, UTC. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * SQL of the daily usage records (usage_daily, owned by privacy) and of the one column of messages the
 * roll-up keeps (usage_counted_at): the roll-up reads settled messages there and marks them counted in
 * the same unit as it adds them up, so no message is counted twice or missed.
 */
@Injectable()
export class UsageRepository {
  constructor(private readonly uow: UnitOfWork) {}

  /** Rolls up to `limit` settled messages into the records in one unit; how many it counted. */
  async rollBatch(limit: number, now: number): Promise<number> {
    return this.uow.transaction(async (tx) => {
      const rows = (await tx.rows(usageStatements.uncounted(limit, this.uow.capabilities.skipLocked))).map(toUncounted);
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
      // In key order, so two replicas' units add to shared records in the same order (no deadlock cycle).
      for (const [, g] of [...groups].sort(([a], [b]) => (a < b ? -1 : 1))) {
        await tx.run(
          insertOrAdd(this.uow.capabilities.upsert, 'usage_daily', g.keys, {
            messages: g.messages,
            parts: g.parts,
            cost: g.cost,
          }),
        );
      }
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
    const rows = await this.uow.rows(usageStatements.range(accountId, fromDay, toDay));
    return rows.map((r) => ({
      day: String(r.day),
      channel: String(r.channel),
      purpose: String(r.purpose),
      source: String(r.source),
      messages: Number(r.messages),
      parts: Number(r.parts),
      cost: Number(r.cost),
    }));
  }
}

function toUncounted(r: Record<string, unknown>): UncountedMessage {
  return {
    id: String(r.id),
    accountId: accountIdOf(String(r.account_id)),
    channel: String(r.channel),
    purpose: String(r.purpose ?? 'transactional'),
    createdAt: Number(r.created_at),
    paidFrom: r.paid_from === null || r.paid_from === undefined ? null : String(r.paid_from),
    cost: Number(r.cost),
    segments: r.segments === null || r.segments === undefined ? null : Number(r.segments),
    refunded: r.refunded_at !== null && r.refunded_at !== undefined,
  };
}
