import { Injectable } from '@nestjs/common';
import { newId } from '../../common/ids';
import { isUniqueViolation } from '../../database/db-errors';
import { inList, query, Query, Row, sql, SqlParam, updateFromRows, str } from '../../database/sql';
import { UnitOfWork } from '../../database/unit-of-work';
import type { ProviderReceipt, ReceiptStatus, UndeliveredCode } from '../../providers/provider-events';
import type { PartStatus } from './lifecycle-rules';
import { AccountId, accountIdOf } from '../../common/account-id';

/**
 * Ids one read of refs looks up. With more (the server's index-dive limit is 200 by default) the
 * planner estimates from index statistics, which lag behind a table this young and fast-growing, and
 * chose full scans of it early in a large run (slow log: ~40k rows examined per read).
 */
const REFS_PER_READ = 100;

/** One provider id of a sent message (one per SMS part). */
export interface ProviderRef {
  providerMessageId: string;
  messageId: string;
  accountId: AccountId;
  partIndex: number;
  status: PartStatus;
}

/** A receipt kept until its message is recorded (RECEIPT_MATCH_WINDOW_MS). */
export interface PendingReceipt extends ProviderReceipt {
  id: string;
}

/**
 * The receipt tables: message_provider_refs (provider id -> message, written when a message is
 * marked sent) and pending_receipts (receipts that came before their message was recorded). Refs
 * are found by a provider id that is not the account's (receipts carry no account): the reads
 * return the account id, and every message statement after them filters by it.
 */
@Injectable()
export class ReceiptsRepository {
  constructor(private readonly uow: UnitOfWork) {}

  /**
   * One multi-row INSERT of the refs of messages just marked sent (in that unit). A message marked
   * sent again (settled after a crash by the provider's lookup) has its refs already: if the batch
   * hits one, its rows are inserted one by one and the existing ones kept.
   */
  async insertRefs(
    sent: { id: string; accountId: AccountId; providerMessageIds: string[] }[],
    now: number,
  ): Promise<void> {
    const rows: SqlParam[][] = [];
    for (const s of sent) {
      const ids = [...new Set(s.providerMessageIds.map((p) => p.slice(0, 200)))];
      ids.forEach((p, i) => rows.push([p, s.id, s.accountId, i, ids.length, 'sent', now]));
    }
    if (!rows.length) return;
    try {
      await this.insertRefRows(rows);
    } catch (err) {
      if (!isUniqueViolation(err) || rows.length === 1) {
        if (isUniqueViolation(err)) return;
        throw err;
      }
      for (const r of rows)
        await this.insertRefRows([r]).catch((e: unknown) => (isUniqueViolation(e) ? undefined : Promise.reject(e)));
    }
  }

  private async insertRefRows(rows: SqlParam[][]): Promise<void> {
    await this.uow.run({
      sql: `INSERT INTO message_provider_refs (provider_message_id, message_id, account_id, part_index, part_count, status, created_at) VALUES ${rows.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      params: rows.flat(),
    });
  }

  /** The refs of these provider ids, across accounts (a receipt names no account), each id's newest first. */
  async refsOfAnyAccount(providerMessageIds: string[]): Promise<ProviderRef[]> {
    return this.refsBySlice(providerMessageIds, (ids) =>
      query(
        toRef,
        sql(
          `SELECT provider_message_id, message_id, account_id, part_index, status FROM message_provider_refs WHERE provider_message_id IN (${inList(ids.length)}) ORDER BY created_at DESC`,
          ...ids,
        ),
      ),
    );
  }

  /** Every part of these messages (found through refs, so with their accounts), in part order. */
  async refsOfMessages(messages: { id: string; accountId: AccountId }[]): Promise<ProviderRef[]> {
    return this.refsBySlice(messages, (slice) => {
      const accounts = [...new Set(slice.map((m) => m.accountId))];
      return query(
        toRef,
        sql(
          `SELECT provider_message_id, message_id, account_id, part_index, status FROM message_provider_refs WHERE message_id IN (${inList(slice.length)}) AND account_id IN (${inList(accounts.length)}) ORDER BY message_id, part_index`,
          ...slice.map((m) => m.id),
          ...accounts,
        ),
      );
    });
  }

  /** Refs read REFS_PER_READ keys at a time (each key's refs come from one read, so their order holds). */
  private async refsBySlice<K>(keys: K[], read: (slice: K[]) => Query<ProviderRef>): Promise<ProviderRef[]> {
    const refs: ProviderRef[] = [];
    for (let i = 0; i < keys.length; i += REFS_PER_READ)
      refs.push(...(await this.uow.read(read(keys.slice(i, i + REFS_PER_READ)))));
    return refs;
  }

  /** New part statuses (and failure codes) in one UPDATE. */
  async setPartStatuses(
    changes: { ref: ProviderRef; status: PartStatus; providerErrorCode: string | null }[],
  ): Promise<void> {
    if (!changes.length) return;
    // Each part's values looked up by its key (provider id, message id), not read through per row.
    const rows = changes.map((c): SqlParam[] => [
      c.ref.providerMessageId,
      c.ref.messageId,
      c.status,
      c.providerErrorCode?.slice(0, 100) ?? null,
    ]);
    await this.uow.run(
      updateFromRows(
        this.uow.capabilities.updateFrom,
        'message_provider_refs',
        ['provider_message_id', 'message_id'],
        ['status', 'provider_error_code'],
        rows,
      ),
    );
  }

  /** One multi-row INSERT of receipts no message is recorded for yet, kept until `expiresAt`. */
  async keepPending(receipts: readonly ProviderReceipt[], expiresAt: number): Promise<void> {
    if (!receipts.length) return;
    const params: SqlParam[] = [];
    for (const r of receipts)
      params.push(
        newId('rcp'),
        r.providerMessageId.slice(0, 200),
        r.status,
        r.providerStatus.slice(0, 100),
        r.errorCode,
        r.providerErrorCode?.slice(0, 100) ?? null,
        r.at,
        expiresAt,
      );
    await this.uow.run({
      sql: `INSERT INTO pending_receipts (id, provider_message_id, status, provider_status, error_code, provider_error_code, at, expires_at) VALUES ${receipts.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      params,
    });
  }

  /** Pending receipts for these provider ids, oldest first. */
  async pendingFor(providerMessageIds: string[]): Promise<PendingReceipt[]> {
    if (!providerMessageIds.length) return [];
    return this.uow.read(
      query(
        toPending,
        sql(
          `SELECT * FROM pending_receipts WHERE provider_message_id IN (${inList(providerMessageIds.length)}) ORDER BY at, id`,
          ...providerMessageIds,
        ),
      ),
    );
  }

  /** Pending receipts whose message has been recorded since (a race with the send's own look-up), across accounts. */
  async matchedPendingAcrossAccounts(limit: number): Promise<PendingReceipt[]> {
    return this.uow.read(
      query(
        toPending,
        sql(
          `SELECT p.* FROM pending_receipts p WHERE EXISTS (SELECT 1 FROM message_provider_refs r WHERE r.provider_message_id = p.provider_message_id) ORDER BY p.at, p.id LIMIT ${Math.floor(limit)}`,
        ),
      ),
    );
  }

  async deletePending(ids: string[]): Promise<void> {
    if (ids.length) await this.uow.run(sql(`DELETE FROM pending_receipts WHERE id IN (${inList(ids.length)})`, ...ids));
  }

  /** Drops receipts kept past their window (their message never showed up); returns how many. */
  async purgeExpired(now: number): Promise<number> {
    return this.uow.exec(sql('DELETE FROM pending_receipts WHERE expires_at < ?', now));
  }
}

function toRef(r: Row): ProviderRef {
  return {
    providerMessageId: String(r.provider_message_id),
    messageId: String(r.message_id),
    accountId: accountIdOf(String(r.account_id)),
    partIndex: Number(r.part_index),
    status: String(r.status) as PartStatus,
  };
}

function toPending(r: Row): PendingReceipt {
  return {
    id: String(r.id),
    providerMessageId: String(r.provider_message_id),
    status: String(r.status) as ReceiptStatus,
    providerStatus: String(r.provider_status),
    errorCode: str(r.error_code) as UndeliveredCode | null,
    providerErrorCode: str(r.provider_error_code),
    at: Number(r.at),
  };
}
