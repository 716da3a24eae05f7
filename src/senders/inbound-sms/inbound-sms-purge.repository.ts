import { Injectable, OnModuleInit } from '@nestjs/common';
import type { AccountId } from '../../common/account-id';
import { InboundSmsPurge, RetentionPurges } from '../../common/retention/retention-purges';
import { decoders, inList, query, sql, type Query, type Stmt } from '../../database/sql';
import { UnitOfWork } from '../../database/unit-of-work';

/** Retention's statements on inbound_sms, bounded and by an index range (exported for the plans test). */
export const inboundSmsPurgeStatements = {
  /** Inbound SMS of an account (null: matched no account) received before `before` (ix_inbound_sms_account_received). */
  expired: (accountId: AccountId | null, before: number, limit: number): Query<string> =>
    query(
      decoders.id,
      accountId === null
        ? sql(
            `SELECT id FROM inbound_sms WHERE account_id IS NULL AND received_at < ? ORDER BY received_at LIMIT ${limit}`,
            before,
          )
        : sql(
            `SELECT id FROM inbound_sms WHERE account_id = ? AND received_at < ? ORDER BY received_at LIMIT ${limit}`,
            accountId,
            before,
          ),
    ),
  delete: (ids: string[]): Stmt => sql(`DELETE FROM inbound_sms WHERE id IN (${inList(ids.length)})`, ...ids),
  oldest: (): Query<string | null> => query(decoders.k, sql('SELECT MIN(id) AS k FROM inbound_sms')),
};

/** Inbound SMS's part of retention: messages received before their retention. */
@Injectable()
export class InboundSmsPurgeRepository implements InboundSmsPurge, OnModuleInit {
  readonly tables = ['inbound_sms'] as const;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly purges: RetentionPurges,
  ) {}

  onModuleInit(): void {
    this.purges.provide('inboundSms', this);
  }

  async deleteBefore(accountId: AccountId | null, before: number, limit: number): Promise<number> {
    const found = await this.uow.read(inboundSmsPurgeStatements.expired(accountId, before, limit));
    return found.length ? this.uow.exec(inboundSmsPurgeStatements.delete(found)) : 0;
  }

  async oldestKey(): Promise<string | null> {
    const [k] = await this.uow.read(inboundSmsPurgeStatements.oldest());
    return k ?? null;
  }
}
