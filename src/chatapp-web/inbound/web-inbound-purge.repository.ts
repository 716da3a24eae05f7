import { Injectable, OnModuleInit } from '@nestjs/common';
import type { AccountId } from '../../common/account-id';
import { RetentionPurges, WebInboundPurge } from '../../common/retention/retention-purges';
import { decoders, inList, query, sql, type Query, type Stmt } from '../../database/sql';
import { UnitOfWork } from '../../database/unit-of-work';

/** Retention's statements on web_inbound_messages, bounded and by an index range (exported for the plans test). */
export const webInboundPurgeStatements = {
  /** Web-session inbound messages of an account accepted before `beforeId` (ix_web_inbound_account). */
  expired: (accountId: AccountId, beforeId: string, limit: number): Query<string> =>
    query(
      decoders.id,
      sql(
        `SELECT id FROM web_inbound_messages WHERE account_id = ? AND id < ? ORDER BY id LIMIT ${limit}`,
        accountId,
        beforeId,
      ),
    ),
  delete: (ids: string[]): Stmt => sql(`DELETE FROM web_inbound_messages WHERE id IN (${inList(ids.length)})`, ...ids),
  oldest: (): Query<string | null> => query(decoders.k, sql('SELECT MIN(id) AS k FROM web_inbound_messages')),
};

/** Web-session inbound's part of retention: messages accepted before their retention. */
@Injectable()
export class WebInboundPurgeRepository implements WebInboundPurge, OnModuleInit {
  readonly tables = ['web_inbound_messages'] as const;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly purges: RetentionPurges,
  ) {}

  onModuleInit(): void {
    this.purges.provide('webInbound', this);
  }

  async deleteBefore(accountId: AccountId, beforeId: string, limit: number): Promise<number> {
    const found = await this.uow.read(webInboundPurgeStatements.expired(accountId, beforeId, limit));
    return found.length ? this.uow.exec(webInboundPurgeStatements.delete(found)) : 0;
  }

  async oldestKey(): Promise<string | null> {
    const [k] = await this.uow.read(webInboundPurgeStatements.oldest());
    return k ?? null;
  }
}
