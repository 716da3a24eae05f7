import { Injectable } from '@nestjs/common';
import { query, Row, sql, str } from '../../database/sql';
import { UnitOfWork } from '../../database/unit-of-work';
import { AccountId, accountIdOf } from '../../common/account-id';

/** A message the scheduled sender may take: its id, its account, and who last held it (null: nobody). */
export interface LeasableMessage {
  id: string;
  accountId: AccountId;
  leaseOwner: string | null;
}

/**
 * The reads that find work across accounts, exported for the plans test. A scheduled or queued message
 * has never been counted into usage (the roll-up counts settled ones; a requeue clears the mark), so both
 * range over ix_messages_counted_status (usage_counted_at, status, scheduled_at) at `usage_counted_at IS NULL`.
 */
export const messageLeaseStatements = {
  due: (now: number, limit: number) =>
    query(
      leasable,
      sql(
        `SELECT id, account_id, lease_owner FROM messages WHERE usage_counted_at IS NULL AND status = 'scheduled' AND scheduled_at <= ? AND (lease_expires_at IS NULL OR lease_expires_at < ?) ORDER BY scheduled_at LIMIT ${Number(limit)}`,
        now,
        now,
      ),
    ),
  staleQueued: (updatedBefore: number, now: number, limit: number) =>
    query(
      leasable,
      sql(
        `SELECT id, account_id, lease_owner FROM messages WHERE usage_counted_at IS NULL AND status = 'queued' AND bulk_job_id IS NULL AND updated_at < ? AND (lease_expires_at IS NULL OR lease_expires_at < ?) LIMIT ${Number(limit)}`,
        updatedBefore,
        now,
      ),
    ),
};

/**
 * The scheduled sender's statements on the message log. Finding due work and letting go of a
 * replica's leases span accounts by design (one loop serves every account) and say so; a claim is
 * made on a message already found, with its account id.
 */
@Injectable()
export class MessageLeasesRepository {
  constructor(private readonly uow: UnitOfWork) {}

  /** Scheduled messages due by `now` and not leased (or whose lease expired), oldest due first. */
  async dueAcrossAccounts(now: number, limit: number): Promise<LeasableMessage[]> {
    return this.uow.read(messageLeaseStatements.due(now, limit));
  }

  /** Single sends (no bulk job) left `queued` since before `updatedBefore`, not leased: a crash left them. */
  async staleQueuedAcrossAccounts(updatedBefore: number, now: number, limit: number): Promise<LeasableMessage[]> {
    return this.uow.read(messageLeaseStatements.staleQueued(updatedBefore, now, limit));
  }

  /** Leases one message in `status` for `owner` until `until`, counting the attempt; false when someone else holds it or it moved on. */
  async claim(
    accountId: AccountId,
    id: string,
    status: 'scheduled' | 'queued',
    owner: string,
    now: number,
    until: number,
  ): Promise<boolean> {
    const r = await this.uow.run(
      sql(
        'UPDATE messages SET lease_owner = ?, lease_expires_at = ?, attempts = attempts + 1, updated_at = ? WHERE id = ? AND account_id = ? AND status = ? AND (lease_expires_at IS NULL OR lease_expires_at < ?)',
        owner,
        until,
        now,
        id,
        accountId,
        status,
        now,
      ),
    );
    return r.affected === 1;
  }

  /**
   * A scheduled message `owner` leased on its first attempt (nothing reached a provider) put back for
   * `at`, unleased as if never claimed (so it can still be cancelled): the sending hours moved it.
   */
  async reschedule(accountId: AccountId, id: string, owner: string, at: number, now: number): Promise<boolean> {
    const r = await this.uow.run(
      sql(
        "UPDATE messages SET scheduled_at = ?, lease_owner = NULL, lease_expires_at = NULL, attempts = attempts - 1, updated_at = ? WHERE id = ? AND account_id = ? AND status = 'scheduled' AND lease_owner = ?",
        at,
        now,
        id,
        accountId,
        owner,
      ),
    );
    return r.affected === 1;
  }

  /**
   * Every open message `owner` still leases, whatever its account, claimable again at once. The lease
   * is left expired, not cleared: a cancel needs `lease_expires_at IS NULL` (never claimed), so one
   * that may have reached the provider is never refunded.
   */
  async expireLeasesOfAcrossAccounts(owner: string): Promise<void> {
    await this.uow.run(
      sql(
        "UPDATE messages SET lease_owner = NULL, lease_expires_at = 0 WHERE lease_owner = ? AND status IN ('scheduled', 'queued')",
        owner,
      ),
    );
  }
}

function leasable(r: Row): LeasableMessage {
  return {
    id: String(r.id),
    accountId: accountIdOf(String(r.account_id)),
    leaseOwner: str(r.lease_owner),
  };
}
