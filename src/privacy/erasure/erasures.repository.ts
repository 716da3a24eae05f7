import { Injectable } from '@nestjs/common';
import { isUniqueViolation } from '../../database/db-errors';
import { decoders, query, Row, sql } from '../../database/sql';
import { UnitOfWork } from '../../database/unit-of-work';
import { AccountId, accountIdOf } from '../../common/account-id';

export type ErasureStatus = 'running' | 'completed';
export type ErasureCounts = Record<string, number>;

/** An erasures row. */
export interface ErasureRecord {
  id: string;
  accountId: AccountId;
  recipientHash: string;
  /** The plain recipient while running; null once completed. */
  recipient: string | null;
  status: ErasureStatus;
  counts: ErasureCounts;
  run: number;
  createdAt: number;
  updatedAt: number;
  completedAt: number | null;
}

const SELECT =
  'SELECT id, account_id, recipient_hash, recipient, status, counts, run, created_at, updated_at, completed_at FROM erasures';

/** The one mapping of an erasures row. */
function toRecord(r: Row): ErasureRecord {
  return {
    id: String(r.id),
    accountId: accountIdOf(String(r.account_id)),
    recipientHash: String(r.recipient_hash),
    recipient: r.recipient === null ? null : String(r.recipient),
    status: String(r.status) as ErasureStatus,
    counts: JSON.parse(String(r.counts)) as ErasureCounts,
    run: Number(r.run),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    completedAt: r.completed_at === null ? null : Number(r.completed_at),
  };
}

/** Erasures, owned by the privacy module: one per (account, recipient hash); the loop's lease on each. */
@Injectable()
export class ErasuresRepository {
  constructor(private readonly uow: UnitOfWork) {}

  async find(accountId: AccountId, id: string): Promise<ErasureRecord | null> {
    const rows = await this.uow.read(query(toRecord, sql(`${SELECT} WHERE id = ? AND account_id = ?`, id, accountId)));
    return rows[0] ?? null;
  }

  async findByHash(accountId: AccountId, hash: string): Promise<ErasureRecord | null> {
    const rows = await this.uow.read(
      query(toRecord, sql(`${SELECT} WHERE account_id = ? AND recipient_hash = ?`, accountId, hash)),
    );
    return rows[0] ?? null;
  }

  /** False when the account already has an erasure of this recipient (a concurrent request). */
  async insert(e: ErasureRecord): Promise<boolean> {
    try {
      await this.uow.exec(
        sql(
          "INSERT INTO erasures (id, account_id, recipient_hash, recipient, status, counts, run, created_at, updated_at) VALUES (?, ?, ?, ?, 'running', ?, 1, ?, ?)",
          e.id,
          e.accountId,
          e.recipientHash,
          e.recipient,
          JSON.stringify(e.counts),
          e.createdAt,
          e.updatedAt,
        ),
      );
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  /** A completed erasure runs again (new rows that name the recipient since): the next run. */
  async reopen(accountId: AccountId, id: string, recipient: string, now: number): Promise<boolean> {
    const n = await this.uow.exec(
      sql(
        "UPDATE erasures SET status = 'running', recipient = ?, run = run + 1, completed_at = NULL, updated_at = ? WHERE id = ? AND account_id = ? AND status = 'completed'",
        recipient,
        now,
        id,
        accountId,
      ),
    );
    return n === 1;
  }

  /** Running erasures no replica holds (across accounts: the loop's), oldest first. */
  async claimableAcrossAccounts(now: number, limit: number): Promise<string[]> {
    return this.uow.read(
      query(
        decoders.id,
        sql(
          `SELECT id FROM erasures WHERE status = 'running' AND (lease_expires_at IS NULL OR lease_expires_at < ?) ORDER BY created_at LIMIT ${limit}`,
          now,
        ),
      ),
    );
  }

  /** Takes the lease of a running erasure if it is free or expired: the record, or null when another holds it. */
  async claim(id: string, owner: string, now: number, until: number): Promise<ErasureRecord | null> {
    const n = await this.uow.exec(
      sql(
        "UPDATE erasures SET lease_owner = ?, lease_expires_at = ? WHERE id = ? AND status = 'running' AND (lease_expires_at IS NULL OR lease_expires_at < ?)",
        owner,
        until,
        id,
        now,
      ),
    );
    if (n !== 1) return null;
    const rows = await this.uow.read(query(toRecord, sql(`${SELECT} WHERE id = ?`, id)));
    return rows[0] ?? null;
  }

  /** Records progress and renews the lease; false when the lease was lost (another replica took over). */
  async progress(id: string, owner: string, counts: ErasureCounts, now: number, until: number): Promise<boolean> {
    const n = await this.uow.exec(
      sql(
        'UPDATE erasures SET counts = ?, updated_at = ?, lease_expires_at = ? WHERE id = ? AND lease_owner = ?',
        JSON.stringify(counts),
        now,
        until,
        id,
        owner,
      ),
    );
    return n === 1;
  }

  /** Completes the run the holder worked on (not one reopened since); the plain recipient is forgotten. */
  async complete(id: string, owner: string, run: number, now: number): Promise<boolean> {
    const n = await this.uow.exec(
      sql(
        "UPDATE erasures SET status = 'completed', recipient = NULL, completed_at = ?, updated_at = ?, lease_owner = NULL, lease_expires_at = NULL WHERE id = ? AND lease_owner = ? AND run = ?",
        now,
        now,
        id,
        owner,
        run,
      ),
    );
    return n === 1;
  }

  async release(id: string, owner: string): Promise<void> {
    await this.uow.exec(
      sql(
        'UPDATE erasures SET lease_owner = NULL, lease_expires_at = NULL WHERE id = ? AND lease_owner = ?',
        id,
        owner,
      ),
    );
  }
}
