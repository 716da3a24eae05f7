import { Injectable, OnModuleInit } from '@nestjs/common';
import { RetentionPurges, SandboxPurge } from '../../common/retention/retention-purges';
import { decoders, inList, query, sql, type Query, type Stmt } from '../../database/sql';
import { UnitOfWork } from '../../database/unit-of-work';

/** Retention's statements on sandbox_deliveries, bounded and by primary key (exported for the plans test). */
export const sandboxPurgeStatements = {
  /** Sandbox deliveries recorded before `beforeId` (primary key). */
  expired: (beforeId: string, limit: number): Query<string> =>
    query(decoders.id, sql(`SELECT id FROM sandbox_deliveries WHERE id < ? ORDER BY id LIMIT ${limit}`, beforeId)),
  delete: (ids: string[]): Stmt => sql(`DELETE FROM sandbox_deliveries WHERE id IN (${inList(ids.length)})`, ...ids),
  /** The deliveries of messages being purged, in the messages' unit (messaging composes it). */
  deleteOfMessages: (messageIds: string[]): Stmt =>
    sql(`DELETE FROM sandbox_deliveries WHERE message_id IN (${inList(messageIds.length)})`, ...messageIds),
  oldest: (): Query<string | null> => query(decoders.k, sql('SELECT MIN(id) AS k FROM sandbox_deliveries')),
};

/** The sandbox's part of retention: its deliveries past RETENTION_SANDBOX_DAYS. */
@Injectable()
export class SandboxPurgeRepository implements SandboxPurge, OnModuleInit {
  readonly tables = ['sandbox_deliveries'] as const;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly purges: RetentionPurges,
  ) {}

  onModuleInit(): void {
    this.purges.provide('sandbox', this);
  }

  async deleteBefore(beforeId: string, limit: number): Promise<number> {
    const found = await this.uow.read(sandboxPurgeStatements.expired(beforeId, limit));
    return found.length ? this.uow.exec(sandboxPurgeStatements.delete(found)) : 0;
  }

  async oldestKey(): Promise<string | null> {
    const [k] = await this.uow.read(sandboxPurgeStatements.oldest());
    return k ?? null;
  }
}
