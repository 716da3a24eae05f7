import { Injectable } from '@nestjs/common';
import { Coalescer } from '../common/coalescer';
import { inList, query, Query, Row, sql, SqlParam } from '../database/sql';
import { UnitOfWork } from '../database/unit-of-work';
import type { SuppressionChannel, SuppressionReason, SuppressionRecord, SuppressionScope } from './suppression-types';
import { AccountId, accountIdOf } from '../common/account-id';

const COLUMNS = [
  'id',
  'account_id',
  'recipient_hash',
  'recipient',
  'channel',
  'scope',
  'reason',
  'source',
  'created_at',
];
const SELECT = `SELECT ${COLUMNS.join(', ')} FROM suppressions`;

/** The one mapping of a suppressions row. */
function toRecord(r: Row): SuppressionRecord {
  return {
    id: String(r.id),
    accountId: accountIdOf(String(r.account_id)),
    recipientHash: String(r.recipient_hash),
    recipient: r.recipient === null ? null : String(r.recipient),
    channel: String(r.channel) as SuppressionChannel,
    scope: String(r.scope) as SuppressionScope,
    reason: String(r.reason) as SuppressionReason,
    source: r.source === null ? null : String(r.source),
    createdAt: Number(r.created_at),
  };
}

export interface SuppressionFilter {
  recipientHash?: string;
  channel?: SuppressionChannel;
  reason?: SuppressionReason;
  /** Cursor: entries after this one in (created_at, id) order. */
  after?: { createdAt: number; id: string } | null;
  limit: number;
}

/** An entry that a policy lookup found: enough to decide. */
export interface SuppressionHit {
  accountId: AccountId;
  recipientHash: string;
  channel: SuppressionChannel;
  scope: SuppressionScope;
}

/** The one mapping of a policy lookup's row. */
function toSuppressionHit(r: Row): SuppressionHit {
  return {
    accountId: accountIdOf(String(r.account_id)),
    recipientHash: String(r.recipient_hash),
    channel: String(r.channel) as SuppressionChannel,
    scope: String(r.scope) as SuppressionScope,
  };
}

/** One policy lookup: an account's recipients (hashes) on some channels. */
interface HitsRequest {
  accountId: AccountId;
  hashes: readonly string[];
  channels: readonly string[];
}

/** Hashes per coalesced lookup (a request's channels add a few parameters more). */
const HASHES_PER_LOOKUP = 1000;

export const suppressionStatements = {
  /**
   * The entries of several lookups in one read: per lookup, its account's recipients on its channels,
   * each a range of ux_suppressions_recipient (account_id, recipient_hash, channel).
   */
  hits: (reqs: readonly HitsRequest[]): Query<SuppressionHit> =>
    query(
      toSuppressionHit,
      sql(
        `SELECT account_id, recipient_hash, channel, scope FROM suppressions WHERE ${reqs
          .map(
            (r) =>
              `(account_id = ? AND recipient_hash IN (${inList(r.hashes.length)}) AND channel IN (${inList(r.channels.length)}))`,
          )
          .join(' OR ')}`,
        ...reqs.flatMap((r) => [r.accountId, ...r.hashes, ...r.channels]),
      ),
    ),
};

/** The suppression list, owned by the consent module. Every method takes the owning account. */
@Injectable()
export class SuppressionsRepository {
  /** Policy lookups of windows in flight at once (hundreds of jobs' windows), one read for many. */
  private readonly lookups: Coalescer<HitsRequest, SuppressionHit[]>;

  constructor(private readonly uow: UnitOfWork) {
    this.lookups = new Coalescer({
      batch: (reqs) => this.hitsOf(reqs),
      weight: (r) => r.hashes.length,
      maxWeight: HASHES_PER_LOOKUP,
      ...uow.coalescing,
    });
  }

  /**
   * Adds entries (one statement). An entry that exists for (account, hash, channel) keeps its id,
   * reason, source and time; its scope becomes the one given (a later `all` widens a `marketing`).
   */
  async upsert(accountId: AccountId, entries: readonly SuppressionRecord[]): Promise<void> {
    if (entries.length === 0) return;
    const params: SqlParam[] = [];
    for (const e of entries) {
      params.push(e.id, accountId, e.recipientHash, e.recipient, e.channel, e.scope, e.reason, e.source, e.createdAt);
    }
    const tuple = `(${inList(COLUMNS.length)})`;
    const onConflict =
      this.uow.capabilities.upsert === 'on-conflict'
        ? 'ON CONFLICT (account_id, recipient_hash, channel) DO UPDATE SET scope = excluded.scope, recipient = COALESCE(excluded.recipient, suppressions.recipient)'
        : 'ON DUPLICATE KEY UPDATE scope = VALUES(scope), recipient = COALESCE(VALUES(recipient), recipient)';
    await this.uow.exec(
      sql(
        `INSERT INTO suppressions (${COLUMNS.join(', ')}) VALUES ${entries.map(() => tuple).join(', ')} ${onConflict}`,
        ...params,
      ),
    );
  }

  /** Deletes the recipient's entries (of one channel key, or all of them): how many went. */
  async remove(accountId: AccountId, recipientHash: string, channel?: SuppressionChannel): Promise<number> {
    const byChannel = channel ? ' AND channel = ?' : '';
    return this.uow.exec(
      sql(
        `DELETE FROM suppressions WHERE account_id = ? AND recipient_hash = ?${byChannel}`,
        ...([accountId, recipientHash, ...(channel ? [channel] : [])] as SqlParam[]),
      ),
    );
  }

  async find(
    accountId: AccountId,
    recipientHash: string,
    channel: SuppressionChannel,
  ): Promise<SuppressionRecord | null> {
    const rows = await this.uow.read(
      query(
        toRecord,
        sql(`${SELECT} WHERE account_id = ? AND recipient_hash = ? AND channel = ?`, accountId, recipientHash, channel),
      ),
    );
    return rows[0] ?? null;
  }

  /** Every entry of the account for any of `hashes` (one indexed read). */
  async ofHashes(accountId: AccountId, hashes: readonly string[]): Promise<SuppressionRecord[]> {
    if (hashes.length === 0) return [];
    return this.uow.read(
      query(
        toRecord,
        sql(`${SELECT} WHERE account_id = ? AND recipient_hash IN (${inList(hashes.length)})`, accountId, ...hashes),
      ),
    );
  }

  /** Oldest first, then by id (a stable cursor). */
  async list(accountId: AccountId, f: SuppressionFilter): Promise<SuppressionRecord[]> {
    const where = ['account_id = ?'];
    const params: SqlParam[] = [accountId];
    if (f.recipientHash) {
      where.push('recipient_hash = ?');
      params.push(f.recipientHash);
    }
    if (f.channel) {
      where.push('channel = ?');
      params.push(f.channel);
    }
    if (f.reason) {
      where.push('reason = ?');
      params.push(f.reason);
    }
    if (f.after) {
      where.push('(created_at > ? OR (created_at = ? AND id > ?))');
      params.push(f.after.createdAt, f.after.createdAt, f.after.id);
    }
    const text = `${SELECT} WHERE ${where.join(' AND ')} ORDER BY created_at, id LIMIT ${f.limit}`;
    return this.uow.read(query(toRecord, sql(text, ...params)));
  }

  /**
   * The entries that may stop a message to any of `hashes` on any of `channels` (each message's own
   * channel and `all`): one indexed read for a whole bulk window, shared with the lookups of the other
   * windows in flight (suppressionStatements.hits).
   */
  async hits(accountId: AccountId, hashes: readonly string[], channels: readonly string[]): Promise<SuppressionHit[]> {
    if (hashes.length === 0) return [];
    return this.lookups.submit({ accountId, hashes, channels });
  }

  /** Lookups in one read; each gets the entries of its own account, recipients and channels. */
  private async hitsOf(reqs: HitsRequest[]): Promise<SuppressionHit[][]> {
    const found = await this.uow.read(suppressionStatements.hits(reqs));
    return reqs.map((r) => {
      const hashes = new Set(r.hashes);
      return found.filter(
        (h) => h.accountId === r.accountId && hashes.has(h.recipientHash) && r.channels.includes(h.channel),
      );
    });
  }
}
