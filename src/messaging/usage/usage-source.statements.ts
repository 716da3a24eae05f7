import { accountIdOf, type AccountId } from '../../common/account-id';
import { inList, query, sql, type Query, type Row, type Stmt, numOrNull, str } from '../../database/sql';

/** Statuses past which a message's payment no longer changes (a refunded failure counts nothing). */
const SETTLED = `('sent', 'delivered', 'read', 'failed', 'cancelled')`;

/** A settled message not yet counted into usage, as the usage roll-up (privacy/usage) reads it. */
export interface UncountedMessage {
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

function toUncounted(r: Row): UncountedMessage {
  return {
    id: String(r.id),
    accountId: accountIdOf(String(r.account_id)),
    channel: String(r.channel),
    purpose: String(r.purpose ?? 'transactional'),
    createdAt: Number(r.created_at),
    paidFrom: str(r.paid_from),
    cost: Number(r.cost),
    segments: numOrNull(r.segments),
    refunded: r.refunded_at !== null && r.refunded_at !== undefined,
  };
}

/**
 * The one column of messages the usage roll-up keeps (usage_counted_at): it reads settled messages not
 * counted yet and marks them counted in the unit that adds them to usage_daily, so each is counted once.
 * Messaging owns the table; the roll-up composes these statements into its unit.
 */
export const usageSourceStatements = {
  /** Settled messages not counted yet (ix_messages_counted_status); rows a sender holds are skipped. */
  uncounted: (limit: number, skipLocked: boolean): Query<UncountedMessage> =>
    query(
      toUncounted,
      sql(
        `SELECT id, account_id, channel, purpose, created_at, paid_from, cost, segments, refunded_at FROM messages WHERE usage_counted_at IS NULL AND status IN ${SETTLED} LIMIT ${limit}${skipLocked ? ' FOR UPDATE SKIP LOCKED' : ''}`,
      ),
    ),
  markCounted: (ids: string[], now: number): Stmt =>
    sql(
      `UPDATE messages SET usage_counted_at = ? WHERE id IN (${inList(ids.length)}) AND usage_counted_at IS NULL`,
      now,
      ...ids,
    ),
};
