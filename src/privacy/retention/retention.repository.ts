import { Injectable } from '@nestjs/common';
import { inList, sql, Stmt } from '../../database/sql';
import { UnitOfWork } from '../../database/unit-of-work';
import type { AccountId } from '../../common/account-id';

/** A table the purger keeps bounded (the label of its metrics). */
export type PurgedTable =
  | 'messages'
  | 'message_status_history'
  | 'message_provider_refs'
  | 'sandbox_deliveries'
  | 'bulk_jobs'
  | 'bulk_rows'
  | 'inbound_sms'
  | 'web_inbound_messages';

export const PURGED_TABLES: PurgedTable[] = [
  'messages',
  'message_status_history',
  'message_provider_refs',
  'sandbox_deliveries',
  'bulk_jobs',
  'bulk_rows',
  'inbound_sms',
  'web_inbound_messages',
];

/** A job is settled once final with nothing pending and no runner holding it. */
const SETTLED_JOB = `status IN ('completed', 'rejected', 'cancelled') AND pending_count = 0 AND lease_owner IS NULL`;

/** The first (oldest) key of each table: its ids sort by creation time (common/ids), read from one index end. */
const OLDEST: Record<PurgedTable, string> = {
  messages: 'SELECT MIN(id) AS k FROM messages',
  message_status_history: 'SELECT MIN(message_id) AS k FROM message_status_history',
  message_provider_refs: 'SELECT MIN(message_id) AS k FROM message_provider_refs',
  sandbox_deliveries: 'SELECT MIN(id) AS k FROM sandbox_deliveries',
  bulk_jobs: 'SELECT MIN(id) AS k FROM bulk_jobs',
  bulk_rows: 'SELECT MIN(job_id) AS k FROM bulk_rows',
  inbound_sms: 'SELECT MIN(id) AS k FROM inbound_sms',
  web_inbound_messages: 'SELECT MIN(id) AS k FROM web_inbound_messages',
};

/**
 * The purger's statements, each bounded (LIMIT) and each reading one index range: by an account and a
 * time (or time-sorted id) before a cutoff, or by primary keys. Exported for the plans test.
 */
export const retentionStatements = {
  /** Messages counted into usage (so settled) before `before` and unchanged since (ix_messages_account_counted). */
  expiredMessages: (accountId: AccountId, before: number, limit: number): Stmt =>
    sql(
      `SELECT id FROM messages WHERE account_id = ? AND usage_counted_at < ? AND +updated_at < ? ORDER BY usage_counted_at LIMIT ${limit}`,
      accountId,
      before,
      before,
    ),
  /**
   * Messages of any account counted into usage in [from, before), oldest count first, read from
   * ix_messages_usage_pending alone (it holds the primary key): one range for every account on the default
   * retention, not one per account. The lock below checks the rest on each row.
   */
  expiredMessagesAnyAccount: (from: number, before: number, limit: number): Stmt =>
    sql(
      `SELECT id, usage_counted_at FROM messages WHERE usage_counted_at >= ? AND usage_counted_at < ? ORDER BY usage_counted_at LIMIT ${limit}`,
      from,
      before,
    ),
  /**
   * The candidates still expired, locked by primary key (rows a sender holds are skipped, not waited for).
   * (`+column`: a condition checked on the row, never an index to range over instead of the keys.)
   */
  lockMessages: (ids: string[], before: number, skipLocked: boolean): Stmt =>
    sql(
      `SELECT id, account_id FROM messages WHERE id IN (${inList(ids.length)}) AND +usage_counted_at < ? AND +updated_at < ?${skipLocked ? ' FOR UPDATE SKIP LOCKED' : ''}`,
      ...ids,
      before,
      before,
    ),
  deleteHistory: (ids: string[]): Stmt =>
    sql(`DELETE FROM message_status_history WHERE message_id IN (${inList(ids.length)})`, ...ids),
  deleteRefs: (ids: string[]): Stmt =>
    sql(`DELETE FROM message_provider_refs WHERE message_id IN (${inList(ids.length)})`, ...ids),
  deleteSandboxOf: (ids: string[]): Stmt =>
    sql(`DELETE FROM sandbox_deliveries WHERE message_id IN (${inList(ids.length)})`, ...ids),
  deleteMessages: (ids: string[]): Stmt => sql(`DELETE FROM messages WHERE id IN (${inList(ids.length)})`, ...ids),
  /** Settled jobs created before `beforeId` and unchanged since `before` (ix_bulk_jobs_account). */
  expiredJobs: (accountId: AccountId, beforeId: string, before: number, limit: number): Stmt =>
    sql(
      `SELECT id FROM bulk_jobs WHERE account_id = ? AND id < ? AND ${SETTLED_JOB} AND +updated_at < ? ORDER BY id LIMIT ${limit}`,
      accountId,
      beforeId,
      before,
    ),
  /** A row still to send (pending or taken): the job is kept (ix_bulk_rows_status). */
  liveRow: (jobId: string): Stmt =>
    sql(`SELECT idx FROM bulk_rows WHERE job_id = ? AND status IN ('pending', 'sending') LIMIT 1`, jobId),
  firstRow: (jobId: string): Stmt => sql('SELECT MIN(idx) AS idx FROM bulk_rows WHERE job_id = ?', jobId),
  deleteRows: (jobId: string, from: number, to: number): Stmt =>
    sql('DELETE FROM bulk_rows WHERE job_id = ? AND idx >= ? AND idx < ?', jobId, from, to),
  deleteJob: (jobId: string): Stmt => sql(`DELETE FROM bulk_jobs WHERE id = ? AND ${SETTLED_JOB}`, jobId),
  /** Inbound SMS of an account (null: matched no account) received before `before` (ix_inbound_sms_account_received). */
  expiredInboundSms: (accountId: AccountId | null, before: number, limit: number): Stmt =>
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
  deleteInboundSms: (ids: string[]): Stmt => sql(`DELETE FROM inbound_sms WHERE id IN (${inList(ids.length)})`, ...ids),
  /** Web-session inbound messages of an account accepted before `beforeId` (ix_web_inbound_account). */
  expiredWebInbound: (accountId: AccountId, beforeId: string, limit: number): Stmt =>
    sql(
      `SELECT id FROM web_inbound_messages WHERE account_id = ? AND id < ? ORDER BY id LIMIT ${limit}`,
      accountId,
      beforeId,
    ),
  deleteWebInbound: (ids: string[]): Stmt =>
    sql(`DELETE FROM web_inbound_messages WHERE id IN (${inList(ids.length)})`, ...ids),
  /** Sandbox deliveries recorded before `beforeId` (primary key). */
  expiredSandbox: (beforeId: string, limit: number): Stmt =>
    sql(`SELECT id FROM sandbox_deliveries WHERE id < ? ORDER BY id LIMIT ${limit}`, beforeId),
  deleteSandbox: (ids: string[]): Stmt =>
    sql(`DELETE FROM sandbox_deliveries WHERE id IN (${inList(ids.length)})`, ...ids),
  oldest: (table: PurgedTable): Stmt => sql(OLDEST[table]),
};

export interface ExpiredMessage {
  id: string;
  /** usage_counted_at (epoch ms). */
  countedAt: number;
}

/** Rows deleted per table by one unit. */
export type Purged = Partial<Record<PurgedTable, number>>;

/**
 * SQL of retention (issue 29). The purger deletes across the tables that grow with traffic, which their
 * owning modules write: deletion is this module's one job there (docs/architecture.md, privacy/), and it
 * never changes a row it keeps.
 */
@Injectable()
export class RetentionRepository {
  constructor(private readonly uow: UnitOfWork) {}

  /** A page of `expiredMessagesAnyAccount`, each with when it was counted. */
  async expiredMessagesAnyAccount(from: number, before: number, limit: number): Promise<ExpiredMessage[]> {
    const rows = await this.uow.rows(retentionStatements.expiredMessagesAnyAccount(from, before, limit));
    return rows.map((r) => ({ id: String(r.id), countedAt: Number(r.usage_counted_at) }));
  }

  async expiredMessageIds(accountId: AccountId, before: number, limit: number): Promise<string[]> {
    return ids(await this.uow.rows(retentionStatements.expiredMessages(accountId, before, limit)));
  }

  /**
   * Deletes the messages still expired among `candidates` (but those of `keptAccounts`) with their
   * history, provider ids and sandbox delivery, in one unit.
   */
  async deleteMessages(candidates: string[], before: number, keptAccounts?: ReadonlySet<string>): Promise<Purged> {
    return this.uow.transaction(async (tx) => {
      const skip = this.uow.capabilities.skipLocked;
      const rows = await tx.rows(retentionStatements.lockMessages(candidates, before, skip));
      const locked = ids(keptAccounts?.size ? rows.filter((r) => !keptAccounts.has(String(r.account_id))) : rows);
      if (!locked.length) return {};
      return {
        message_status_history: await tx.exec(retentionStatements.deleteHistory(locked)),
        message_provider_refs: await tx.exec(retentionStatements.deleteRefs(locked)),
        sandbox_deliveries: await tx.exec(retentionStatements.deleteSandboxOf(locked)),
        messages: await tx.exec(retentionStatements.deleteMessages(locked)),
      };
    });
  }

  async expiredJobIds(accountId: AccountId, beforeId: string, before: number, limit: number): Promise<string[]> {
    return ids(await this.uow.rows(retentionStatements.expiredJobs(accountId, beforeId, before, limit)));
  }

  /**
   * Deletes up to `batch` rows of a settled job (lowest index first), and the job with its last rows;
   * nothing while a row is still to send. Returns what went and whether the job is gone.
   */
  async deleteJobChunk(jobId: string, batch: number): Promise<{ purged: Purged; done: boolean }> {
    if ((await this.uow.rows(retentionStatements.liveRow(jobId))).length) return { purged: {}, done: true };
    const first = (await this.uow.rows(retentionStatements.firstRow(jobId)))[0]?.idx;
    const from = first === null || first === undefined ? null : Number(first);
    return this.uow.transaction(async (tx) => {
      const rows = from === null ? 0 : await tx.exec(retentionStatements.deleteRows(jobId, from, from + batch));
      const left = from === null ? [] : await tx.rows(retentionStatements.firstRow(jobId));
      if (left.length && left[0].idx !== null && left[0].idx !== undefined)
        return { purged: { bulk_rows: rows }, done: false };
      const jobs = await tx.exec(retentionStatements.deleteJob(jobId));
      return { purged: { bulk_rows: rows, bulk_jobs: jobs }, done: true };
    });
  }

  /** One batch of an account's (or, with null, unmatched) inbound SMS received before `before`. */
  async deleteInboundSms(accountId: AccountId | null, before: number, limit: number): Promise<number> {
    const found = ids(await this.uow.rows(retentionStatements.expiredInboundSms(accountId, before, limit)));
    return found.length ? this.uow.exec(retentionStatements.deleteInboundSms(found)) : 0;
  }

  async deleteWebInbound(accountId: AccountId, beforeId: string, limit: number): Promise<number> {
    const found = ids(await this.uow.rows(retentionStatements.expiredWebInbound(accountId, beforeId, limit)));
    return found.length ? this.uow.exec(retentionStatements.deleteWebInbound(found)) : 0;
  }

  async deleteSandbox(beforeId: string, limit: number): Promise<number> {
    const found = ids(await this.uow.rows(retentionStatements.expiredSandbox(beforeId, limit)));
    return found.length ? this.uow.exec(retentionStatements.deleteSandbox(found)) : 0;
  }

  /** The oldest key of `table` (a time-sorted id), null when the table is empty. */
  async oldestKey(table: PurgedTable): Promise<string | null> {
    const k = (await this.uow.rows(retentionStatements.oldest(table)))[0]?.k;
    return k === null || k === undefined ? null : String(k);
  }
}

function ids(rows: Record<string, unknown>[]): string[] {
  return rows.map((r) => String(r.id));
}
