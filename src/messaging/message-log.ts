import { Injectable } from '@nestjs/common';
import { In, Repository } from 'typeorm';
import type { Funding } from '../accounts/ledger.service';
import { isUniqueViolation } from '../database/db-errors';
import { inList, SqlParam } from '../database/sql';
import { UnitOfWork } from '../database/unit-of-work';
import { MessageEntity, MessageStatus } from './entities/message.entity';
import type { MessageFailureCode } from './send-outcome';
import type { ValidatedMessage } from './validation/validated-message';

export interface LogOrigin {
  bulkJobId?: string;
  rowIndex?: number;
}

export interface ListFilter {
  status?: string;
  channel?: string;
  bulkJobId?: string;
  afterId?: string;
  limit: number;
}

/** A paid message as the pipeline records it. */
export interface NewLogEntry {
  id: string;
  accountId: string;
  msg: ValidatedMessage;
  funding: Funding;
  status: MessageStatus;
  origin: LogOrigin;
  /** A queued message its sender will still work on until then (a long batch send). */
  leaseUntil?: number;
}

/**
 * Writes and reads of the message log. Every read and every status move takes the owning account id
 * and filters by it, so a cross-account access cannot be written by accident (the scheduled sender's
 * loop, which works across accounts, has its own statements in scheduled/message-leases.ts). Status
 * moves are conditional on the current status.
 */
@Injectable()
export class MessageLog {
  constructor(private readonly uow: UnitOfWork) {}

  /** The messages repository of the open unit of work (or the default manager's outside one). */
  private get repo(): Repository<MessageEntity> {
    return this.uow.manager.getRepository(MessageEntity);
  }

  /** One multi-row INSERT for a batch of paid messages (raw SQL: this is the hot path of bulk). */
  async insert(rows: NewLogEntry[], now: number): Promise<void> {
    if (!rows.length) return;
    const params: SqlParam[] = [];
    for (const { id, accountId, msg, funding, status, origin, leaseUntil } of rows) {
      params.push(
        id, accountId, msg.channel, msg.messageType, msg.to, msg.sender, msg.template?.id ?? null, status, funding.amount, funding.source,
        msg.encoding ?? null, msg.segments ?? null, origin.bulkJobId ?? null, origin.rowIndex ?? null, status === 'scheduled' ? JSON.stringify(msg) : null, msg.scheduleAt, leaseUntil ?? null, now, now,
      );
    }
    const values = rows.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)').join(', ');
    const sql = `INSERT INTO messages (id, account_id, channel, message_type, recipient, sender, template_id, status, cost, paid_from, encoding, segments, bulk_job_id, row_index, payload, scheduled_at, lease_expires_at, attempts, created_at, updated_at) VALUES ${values}`;
    await this.uow.run({ sql, params });
  }

  /** queued/scheduled -> sent; false when the message was settled already (by another replica). */
  async markSent(accountId: string, id: string, providerMessageId: string, now: number): Promise<boolean> {
    const changed = await this.exec(
      "UPDATE messages SET status = 'sent', provider_message_id = ?, sent_at = ?, updated_at = ?, lease_owner = NULL, lease_expires_at = NULL, payload = NULL WHERE id = ? AND account_id = ? AND status IN ('queued', 'scheduled')",
      [providerMessageId.slice(0, 200), now, now, id, accountId],
    );
    return changed === 1;
  }

  /** Many sent messages in one UPDATE (one statement and one commit for a whole bulk window); returns how many it marked. */
  async markSentMany(accountId: string, sent: { id: string; providerMessageId: string }[], now: number): Promise<number> {
    if (!sent.length) return 0;
    const params: SqlParam[] = [];
    for (const s of sent) params.push(s.id, s.providerMessageId.slice(0, 200));
    return this.exec(
      `UPDATE messages SET status = 'sent', provider_message_id = CASE id ${sent.map(() => 'WHEN ? THEN ?').join(' ')} END, sent_at = ?, updated_at = ?, lease_owner = NULL, lease_expires_at = NULL, payload = NULL WHERE id IN (${inList(sent.length)}) AND account_id = ? AND status IN ('queued', 'scheduled')`,
      [...params, now, now, ...sent.map((s) => s.id), accountId],
    );
  }

  /**
   * queued/scheduled -> failed and refunded (cost 0, refunded_at = now); false when the message was
   * settled already.
   */
  async markFailed(accountId: string, id: string, code: MessageFailureCode, message: string, now: number, opts: { notHandedOff?: boolean } = {}): Promise<boolean> {
    const changed = await this.exec(
      `UPDATE messages SET status = 'failed', error_code = ?, error_message = ?, cost = 0, refunded_at = ?, updated_at = ?, lease_owner = NULL, lease_expires_at = NULL, payload = NULL WHERE id = ? AND account_id = ? AND status IN ('queued', 'scheduled')${opts.notHandedOff ? ' AND handed_off_at IS NULL' : ''}`,
      [code, message.slice(0, 500), now, now, id, accountId],
    );
    return changed === 1;
  }

  /**
   * scheduled -> cancelled (cost 0, refunded_at = now), in the caller's refund transaction. Only while
   * no sender holds or held a lease on it (`lease_expires_at IS NULL`): a claimed row, even one whose
   * lease expired after a crash, may have reached the provider and is the sender's to settle. The
   * sender's claim is conditional on `status = 'scheduled'`, so exactly one of the two UPDATEs wins.
   * `paid` is what the caller will refund: compared too, so the refund matches what was taken.
   */
  async markCancelled(accountId: string, id: string, paid: { cost: number; paidFrom: string | null }, now: number): Promise<boolean> {
    const changed = await this.exec(
      `UPDATE messages SET status = 'cancelled', cost = 0, refunded_at = ?, updated_at = ?, payload = NULL
       WHERE id = ? AND account_id = ? AND status = 'scheduled' AND lease_expires_at IS NULL AND cost = ? AND COALESCE(paid_from, '') = ?`,
      [now, now, id, accountId, paid.cost, paid.paidFrom ?? ''],
    );
    return changed === 1;
  }

  /**
   * Claims a message id that was never paid or recorded (a bulk row of a cancelled job) as `failed`
   * with `code`, cost 0, so a late insert of the same id (a stalled runner) fails on the key and rolls
   * its payment back. False when the id exists already.
   */
  async insertUnpaidFailure(m: { id: string; accountId: string; channel: string; messageType: string; recipient: string; bulkJobId: string; rowIndex: number; code: MessageFailureCode; message: string }, now: number): Promise<boolean> {
    try {
      await this.exec(
        `INSERT INTO messages (id, account_id, channel, message_type, recipient, status, cost, error_code, error_message, bulk_job_id, row_index, attempts, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 'failed', 0, ?, ?, ?, ?, 0, ?, ?)`,
        [m.id, m.accountId, m.channel.slice(0, 20), m.messageType.slice(0, 20), m.recipient.slice(0, 320), m.code, m.message.slice(0, 500), m.bulkJobId, m.rowIndex, now, now],
      );
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  /**
   * Records that a queued (or due scheduled) message is being handed to a provider that cannot be asked about it later
   * (no lookup): after a crash, a `queued` message with this mark may have been delivered.
   */
  async markHandedOff(accountId: string, id: string, now: number): Promise<boolean> {
    const changed = await this.exec("UPDATE messages SET handed_off_at = ?, updated_at = ? WHERE id = ? AND account_id = ? AND status IN ('queued', 'scheduled') AND handed_off_at IS NULL", [now, now, id, accountId]);
    return changed === 1;
  }

  /**
   * Takes the hand-off mark back from a queued message the provider refused to take (a rate limit):
   * it was not delivered, so the next attempt may send it. False when it was settled meanwhile.
   */
  async clearHandOff(accountId: string, id: string, now: number): Promise<boolean> {
    const changed = await this.exec("UPDATE messages SET handed_off_at = NULL, updated_at = ? WHERE id = ? AND account_id = ? AND status = 'queued'", [now, id, accountId]);
    return changed === 1;
  }

  /** A failed (refunded) message paid again for a retry: back to queued, only if still failed. */
  async requeue(accountId: string, id: string, funding: Funding, msg: Pick<ValidatedMessage, 'encoding' | 'segments'>, now: number): Promise<boolean> {
    const changed = await this.exec(
      "UPDATE messages SET status = 'queued', cost = ?, paid_from = ?, encoding = ?, segments = ?, refunded_at = NULL, error_code = NULL, error_message = NULL, handed_off_at = NULL, updated_at = ? WHERE id = ? AND account_id = ? AND status = 'failed'",
      [funding.amount, funding.source, msg.encoding ?? null, msg.segments ?? null, now, id, accountId],
    );
    return changed === 1;
  }

  async findOwned(accountId: string, id: string): Promise<MessageEntity | null> {
    return this.repo.findOneBy({ accountId, id });
  }

  /** Those of these ids the account has in the log, by id (one query). */
  async findOwnedMany(accountId: string, ids: string[]): Promise<Map<string, MessageEntity>> {
    if (!ids.length) return new Map();
    const rows = await this.repo.findBy({ accountId, id: In(ids) });
    return new Map(rows.map((r) => [r.id, r]));
  }

  /** Newest first, keyed by id (ids sort by creation time). */
  async list(accountId: string, f: ListFilter): Promise<MessageEntity[]> {
    const qb = this.repo.createQueryBuilder('m').where('m.account_id = :accountId', { accountId });
    if (f.status) qb.andWhere('m.status = :status', { status: f.status });
    if (f.channel) qb.andWhere('m.channel = :channel', { channel: f.channel });
    if (f.bulkJobId) qb.andWhere('m.bulk_job_id = :bulkJobId', { bulkJobId: f.bulkJobId });
    if (f.afterId) qb.andWhere('m.id < :afterId', { afterId: f.afterId });
    return qb.orderBy('m.id', 'DESC').limit(f.limit).getMany();
  }

  /** Runs one write (in the open unit of work, if any); returns the rows it changed. */
  private async exec(sql: string, params: SqlParam[]): Promise<number> {
    return this.uow.exec({ sql, params });
  }
}
