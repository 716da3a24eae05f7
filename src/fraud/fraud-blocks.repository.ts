import { TEST_ACCOUNT_ID_LIKE } from '../accounts/account-mode';
import { Injectable } from '@nestjs/common';
import { isUniqueViolation } from '../database/db-errors';
import { decoders, query, Row, sql, SqlParam } from '../database/sql';
import { UnitOfWork } from '../database/unit-of-work';
import type { FraudReason } from './fraud-verdict';
import { activeKey } from './prefix-counters';
import { AccountId, accountIdOf } from '../common/account-id';

export type BlockEnd = 'lifted' | 'expired';

/** A fraud_blocks row. */
export interface FraudBlockRecord {
  id: string;
  /** Null: a platform block (every account). */
  accountId: AccountId | null;
  prefix: string;
  reason: FraudReason | 'many_accounts';
  sends: number;
  verified: number;
  /** Platform blocks: accounts blocked for the prefix in the window when it was raised. */
  accounts: number;
  createdAt: number;
  until: number;
  endedAt: number | null;
  endReason: BlockEnd | null;
  endedBy: string | null;
}

const COLUMNS = {
  id: 'id',
  account_id: 'account_id',
  prefix: 'prefix',
  reason: 'reason',
  sends: 'sends',
  verified: 'verified',
  accounts: 'accounts',
  created_at: 'created_at',
  until_at: 'until_at',
  ended_at: 'ended_at',
  end_reason: 'end_reason',
  ended_by: 'ended_by',
} as const;
const SELECT = `SELECT ${Object.keys(COLUMNS).join(', ')} FROM fraud_blocks`;

/** The one mapping of a fraud_blocks row. */
function toRecord(r: Row): FraudBlockRecord {
  const num = (v: unknown) => Number(v);
  const opt = (v: unknown) => (v === null || v === undefined ? null : num(v));
  return {
    id: String(r.id),
    accountId: r.account_id === null ? null : accountIdOf(String(r.account_id)),
    prefix: String(r.prefix),
    reason: String(r.reason) as FraudBlockRecord['reason'],
    sends: num(r.sends),
    verified: num(r.verified),
    accounts: num(r.accounts),
    createdAt: num(r.created_at),
    until: num(r.until_at),
    endedAt: opt(r.ended_at),
    endReason: r.end_reason === null ? null : (String(r.end_reason) as BlockEnd),
    endedBy: r.ended_by === null ? null : String(r.ended_by),
  };
}

/** Filters of a listing: `accountId` undefined lists every account's (the operator). */
export interface BlockFilter {
  accountId?: AccountId;
  scope?: 'account' | 'platform';
  active?: boolean;
  now: number;
  before?: { createdAt: number; id: string } | null;
  limit: number;
}

/** Blocks, owned by the fraud module. At most one block per key is in force (unique active_key). */
@Injectable()
export class FraudBlocksRepository {
  constructor(private readonly uow: UnitOfWork) {}

  /**
   * Records a block unless a block holds its key (in force, or ended by time and not yet closed):
   * true when this call did. Closing a holder is the service's, so that its event goes out.
   */
  async open(b: FraudBlockRecord): Promise<boolean> {
    try {
      await this.uow.exec(
        sql(
          `INSERT INTO fraud_blocks (id, account_id, prefix, reason, sends, verified, accounts, created_at, until_at, active_key)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          b.id,
          b.accountId,
          b.prefix,
          b.reason,
          b.sends,
          b.verified,
          b.accounts,
          b.createdAt,
          b.until,
          activeKey(b.accountId, b.prefix),
        ),
      );
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  async find(id: string): Promise<FraudBlockRecord | null> {
    const rows = await this.uow.read(query(toRecord, sql(`${SELECT} WHERE id = ?`, id)));
    return rows[0] ?? null;
  }

  /** The block holding the key of (account or platform, prefix), if any. */
  async findActive(accountId: AccountId | null, prefix: string): Promise<FraudBlockRecord | null> {
    const rows = await this.uow.read(
      query(toRecord, sql(`${SELECT} WHERE active_key = ?`, activeKey(accountId, prefix))),
    );
    return rows[0] ?? null;
  }

  /** Ends a block in force (lifted now, or expired at its end): false when it was not in force. */
  async end(id: string, how: BlockEnd, at: number, by: string | null): Promise<boolean> {
    const n = await this.uow.exec(
      sql(
        'UPDATE fraud_blocks SET active_key = NULL, ended_at = ?, end_reason = ?, ended_by = ? WHERE id = ? AND active_key IS NOT NULL',
        at,
        how,
        by,
        id,
      ),
    );
    return n === 1;
  }

  /** Blocks whose time ran out but that still hold their key (the sweep closes them), oldest first. */
  async dueToExpire(now: number, limit: number): Promise<FraudBlockRecord[]> {
    return this.uow.read(
      query(
        toRecord,
        sql(`${SELECT} WHERE until_at <= ? AND active_key IS NOT NULL ORDER BY until_at LIMIT ${limit}`, now),
      ),
    );
  }

  /**
   * Live accounts with a block of `prefix` raised since `since` (the platform-wide rule). An account's
   * test mode is not another account: its blocks never count towards a platform block of live codes.
   */
  async accountsBlocked(prefix: string, since: number): Promise<number> {
    const rows = await this.uow.read(
      query(
        decoders.n,
        sql(
          'SELECT COUNT(DISTINCT account_id) AS n FROM fraud_blocks WHERE prefix = ? AND created_at >= ? AND account_id IS NOT NULL AND account_id NOT LIKE ?',
          prefix,
          since,
          TEST_ACCOUNT_ID_LIKE,
        ),
      ),
    );
    return rows[0] ?? 0;
  }

  /** Newest first. An account's listing shows its own blocks and the platform's blocks in force. */
  async list(f: BlockFilter): Promise<FraudBlockRecord[]> {
    const where: string[] = [];
    const params: SqlParam[] = [];
    if (f.accountId !== undefined) {
      where.push('(account_id = ? OR (account_id IS NULL AND active_key IS NOT NULL AND until_at > ?))');
      params.push(f.accountId, f.now);
    }
    if (f.scope) where.push(f.scope === 'platform' ? 'account_id IS NULL' : 'account_id IS NOT NULL');
    if (f.active !== undefined) {
      where.push(f.active ? '(active_key IS NOT NULL AND until_at > ?)' : '(active_key IS NULL OR until_at <= ?)');
      params.push(f.now);
    }
    if (f.before) {
      where.push('(created_at < ? OR (created_at = ? AND id < ?))');
      params.push(f.before.createdAt, f.before.createdAt, f.before.id);
    }
    const text = `${SELECT}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id DESC LIMIT ${f.limit}`;
    return this.uow.read(query(toRecord, sql(text, ...params)));
  }
}
