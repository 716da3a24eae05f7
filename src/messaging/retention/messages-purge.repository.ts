import { Injectable, OnModuleInit } from '@nestjs/common';
import type { AccountId } from '../../common/account-id';
import {
  ExpiredMessage,
  MessagesPurge,
  Purged,
  PurgedTable,
  RetentionPurges,
} from '../../common/retention/retention-purges';
import { decoders, inList, query, sql, type Query, type Row, type Stmt } from '../../database/sql';
import { UnitOfWork } from '../../database/unit-of-work';
import { sandboxPurgeStatements } from '../../providers/sandbox/sandbox-purge.repository';

/** A candidate locked for deletion, with its account (accounts that keep theirs longer are left out). */
interface LockedMessage {
  id: string;
  accountId: string;
}

const toExpired = (r: Row): ExpiredMessage => ({ id: String(r.id), at: Number(r.at) });
const toLocked = (r: Row): LockedMessage => ({ id: String(r.id), accountId: String(r.account_id) });

/** The first (oldest) key of each table: its ids sort by creation time (common/ids), read from one index end. */
const OLDEST = {
  messages: 'SELECT MIN(id) AS k FROM messages',
  message_status_history: 'SELECT MIN(message_id) AS k FROM message_status_history',
  message_provider_refs: 'SELECT MIN(message_id) AS k FROM message_provider_refs',
} as const;
type MessageTable = keyof typeof OLDEST;

/**
 * Retention's statements on messages and what hangs off them, each bounded (LIMIT) and each reading one
 * index range: by an account and a time before a cutoff, or by primary keys. Exported for the plans test.
 */
export const messagesPurgeStatements = {
  /**
   * One account's messages counted into usage (so settled) before `before` and last changed in [from, before),
   * oldest change first: a range of ix_messages_account_updated (both times must be before the cutoff, so
   * the range on the change is exact; the count is checked on the row).
   */
  expiredMessages: (accountId: AccountId, from: number, before: number, limit: number): Query<ExpiredMessage> =>
    query(
      toExpired,
      sql(
        `SELECT id, updated_at AS at FROM messages WHERE account_id = ? AND updated_at >= ? AND updated_at < ? AND +usage_counted_at < ? ORDER BY updated_at LIMIT ${limit}`,
        accountId,
        from,
        before,
        before,
      ),
    ),
  /**
   * Messages of any account counted into usage in [from, before), oldest count first, read from
   * ix_messages_counted_status alone (it holds the primary key): one range for every account on the default
   * retention, not one per account. The lock below checks the rest on each row.
   */
  expiredMessagesAnyAccount: (from: number, before: number, limit: number): Query<ExpiredMessage> =>
    query(
      toExpired,
      sql(
        `SELECT id, usage_counted_at AS at FROM messages WHERE usage_counted_at >= ? AND usage_counted_at < ? ORDER BY usage_counted_at LIMIT ${limit}`,
        from,
        before,
      ),
    ),
  /**
   * The candidates still expired, locked by primary key (rows a sender holds are skipped, not waited for).
   * (`+column`: a condition checked on the row, never an index to range over instead of the keys.)
   */
  lockMessages: (ids: string[], before: number, skipLocked: boolean): Query<LockedMessage> =>
    query(
      toLocked,
      sql(
        `SELECT id, account_id FROM messages WHERE id IN (${inList(ids.length)}) AND +usage_counted_at < ? AND +updated_at < ?${skipLocked ? ' FOR UPDATE SKIP LOCKED' : ''}`,
        ...ids,
        before,
        before,
      ),
    ),
  deleteHistory: (ids: string[]): Stmt =>
    sql(`DELETE FROM message_status_history WHERE message_id IN (${inList(ids.length)})`, ...ids),
  deleteRefs: (ids: string[]): Stmt =>
    sql(`DELETE FROM message_provider_refs WHERE message_id IN (${inList(ids.length)})`, ...ids),
  deleteMessages: (ids: string[]): Stmt => sql(`DELETE FROM messages WHERE id IN (${inList(ids.length)})`, ...ids),
  oldest: (table: MessageTable): Query<string | null> => query(decoders.k, sql(OLDEST[table])),
};

/** Messaging's part of retention: messages counted into usage and unchanged for their retention. */
@Injectable()
export class MessagesPurgeRepository implements MessagesPurge, OnModuleInit {
  readonly tables: readonly PurgedTable[] = Object.keys(OLDEST) as MessageTable[];

  constructor(
    private readonly uow: UnitOfWork,
    private readonly purges: RetentionPurges,
  ) {}

  onModuleInit(): void {
    this.purges.provide('messages', this);
  }

  expiredAnyAccount(from: number, before: number, limit: number): Promise<ExpiredMessage[]> {
    return this.uow.read(messagesPurgeStatements.expiredMessagesAnyAccount(from, before, limit));
  }

  expiredOfAccount(accountId: AccountId, from: number, before: number, limit: number): Promise<ExpiredMessage[]> {
    return this.uow.read(messagesPurgeStatements.expiredMessages(accountId, from, before, limit));
  }

  /**
   * Deletes the messages still expired among `candidates` (but those of `keptAccounts`) with their
   * history, provider ids and sandbox delivery, in one unit.
   */
  async delete(candidates: string[], before: number, keptAccounts?: ReadonlySet<string>): Promise<Purged> {
    return this.uow.transaction(async (tx) => {
      const skip = this.uow.capabilities.skipLocked;
      const rows = await tx.read(messagesPurgeStatements.lockMessages(candidates, before, skip));
      const locked = (keptAccounts?.size ? rows.filter((r) => !keptAccounts.has(r.accountId)) : rows).map((r) => r.id);
      if (!locked.length) return {};
      return {
        message_status_history: await tx.exec(messagesPurgeStatements.deleteHistory(locked)),
        message_provider_refs: await tx.exec(messagesPurgeStatements.deleteRefs(locked)),
        sandbox_deliveries: await tx.exec(sandboxPurgeStatements.deleteOfMessages(locked)),
        messages: await tx.exec(messagesPurgeStatements.deleteMessages(locked)),
      };
    });
  }

  async oldestKey(table: PurgedTable): Promise<string | null> {
    const [k] = await this.uow.read(messagesPurgeStatements.oldest(table as MessageTable));
    return k ?? null;
  }
}
