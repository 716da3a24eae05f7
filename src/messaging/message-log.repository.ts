import { Injectable } from '@nestjs/common';
import { In, Repository, SelectQueryBuilder } from 'typeorm';
import type { Funding } from '../accounts/funding';
import { isUniqueViolation } from '../database/db-errors';
import { sql, SqlParam, Stmt, updateFromRows } from '../database/sql';
import { UnitOfWork } from '../database/unit-of-work';
import { MessageEntity, MessageStatus } from './entities/message.entity';
import type { LogOrigin } from './log-origin';
import type { MessageFailureCode } from './send-outcome';
import type { ValidatedMessage } from './validation/validated-message';
import { ReceiptsRepository } from './lifecycle/receipts.repository';
import { StatusTrail, TrailStep } from './lifecycle/status-trail';
import type { AccountId } from '../common/account-id';
import { groupBy } from '../common/group-by';

export interface ListFilter {
  status?: string;
  channel?: string;
  bulkJobId?: string;
  /** Only messages changed at or after this time (epoch ms). */
  updatedSince?: number;
  /** `created`: newest first by (created_at, id); `updated`: oldest change first by (updated_at, id), for polling. */
  order?: 'created' | 'updated';
  /** The last message of the previous page: its id, and its created_at or updated_at (the order's time). */
  after?: { id: string; createdAt?: number; updatedAt?: number };
  limit: number;
}

/** A message the provider took: its id(s) there (one per SMS part when it split the message). */
export interface SentMark {
  id: string;
  providerMessageId: string;
  providerMessageIds?: string[];
}

/** A paid message as the pipeline records it. */
export interface NewLogEntry {
  id: string;
  accountId: AccountId;
  msg: ValidatedMessage;
  funding: Funding;
  status: MessageStatus;
  origin: LogOrigin;
  /** A queued message its sender will still work on until then (a long batch send). */
  leaseUntil?: number;
}

/**
 * Writes and reads of the message log. Every status move also bumps `sequence` and `updated_at` and,
 * in the same unit, leaves its history row and event (StatusTrail); marking sent records the
 * provider ids receipts are matched by (ReceiptsRepository). Each costs a bounded number of
 * statements per call (a bulk window's moves are multi-row statements). Every read and every status
 * move takes the owning account id and filters by it, so a cross-account access cannot be written by
 * accident (the scheduled sender's loop, which works across accounts, has its own statements in
 * scheduled/message-leases.repository.ts). Status moves are conditional on the current status.
 */
@Injectable()
export class MessageLogRepository {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly trail: StatusTrail,
    private readonly refs: ReceiptsRepository,
  ) {}

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
        id,
        accountId,
        msg.channel,
        msg.messageType,
        msg.to,
        msg.sender,
        msg.template?.id ?? null,
        status,
        msg.purpose ?? 'transactional',
        funding.amount,
        funding.source,
        msg.encoding ?? null,
        msg.segments ?? null,
        origin.bulkJobId ?? null,
        origin.rowIndex ?? null,
        status === 'scheduled' ? JSON.stringify(msg) : null,
        msg.scheduleAt,
        leaseUntil ?? null,
        now,
        now,
      );
    }
    const values = rows.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, 1)').join(', ');
    const sql = `INSERT INTO messages (id, account_id, channel, message_type, recipient, sender, template_id, status, purpose, cost, paid_from, encoding, segments, bulk_job_id, row_index, payload, scheduled_at, lease_expires_at, attempts, created_at, updated_at, sequence) VALUES ${values}`;
    await this.uow.transaction(async () => {
      await this.uow.run({ sql, params });
      await this.trail.firstSteps(rows, now);
    });
  }

  /**
   * queued/scheduled -> sent, for one message or many of one or many accounts (a bulk window, or
   * several): one UPDATE joined by primary key and account (updateFromRows), then one read of them, one history
   * INSERT and one of the provider refs. Returns how many it marked and the messages it moved; a
   * message settled already (by another replica) is in neither.
   */
  async markSent(
    sent: (SentMark & { accountId: AccountId })[],
    now: number,
  ): Promise<{ marked: number; moved: MessageEntity[] }> {
    if (!sent.length) return { marked: 0, moved: [] };
    const owners = groupBy(sent, (m) => m.accountId);
    const ids = sent.map((m) => m.id);
    // Joined by primary key and account (each id was recorded by its own account's payment), so each
    // row takes its own provider id by a key lookup, not by a CASE list read through for every row.
    const mark = updateFromRows(
      this.uow.capabilities.updateFrom,
      'messages',
      ['id', 'account_id'],
      ['provider_message_id'],
      sent.map((m) => [m.id, m.accountId, m.providerMessageId.slice(0, 200)]),
      sql(`messages.status IN ('queued', 'scheduled')`),
      sql(
        "status = 'sent', sent_at = ?, updated_at = ?, sequence = sequence + 1, lease_owner = NULL, lease_expires_at = NULL, payload = NULL",
        now,
        now,
      ),
    );
    return this.uow.transaction(async () => {
      const marked = await this.uow.exec(mark);
      if (!marked) return { marked, moved: [] };
      const rows = (await this.repo.findBy({ id: In(ids) })).filter((r) => owners.has(r.accountId));
      return { marked, moved: await this.afterSent(sent, new Map(rows.map((r) => [r.id, r])), now) };
    });
  }

  /**
   * History, events and provider refs of the messages just marked sent: those of `rows` this unit
   * moved (sent now; another replica's earlier mark has its own sent_at).
   */
  private async afterSent(
    marks: (SentMark & { accountId: AccountId })[],
    rows: Map<string, MessageEntity>,
    now: number,
  ): Promise<MessageEntity[]> {
    const moved = marks.flatMap((m) => {
      const row = rows.get(m.id);
      return row && row.status === 'sent' && Number(row.sentAt) === now && Number(row.updatedAt) === now
        ? [{ mark: m, row }]
        : [];
    });
    await this.trail.record(moved.map(({ row }) => ({ row, steps: [apiStep('sent', now)] })));
    await this.refs.insertRefs(
      moved.map(({ mark }) => ({
        id: mark.id,
        accountId: mark.accountId,
        providerMessageIds: mark.providerMessageIds?.length ? mark.providerMessageIds : [mark.providerMessageId],
      })),
      now,
    );
    return moved.map(({ row }) => row);
  }

  /**
   * queued/scheduled -> failed and refunded (cost 0, refunded_at = now); false when the message was
   * settled already.
   */
  async markFailed(
    accountId: AccountId,
    id: string,
    code: MessageFailureCode,
    message: string,
    now: number,
    opts: { notHandedOff?: boolean } = {},
  ): Promise<boolean> {
    return this.moved(accountId, id, apiStep('failed', now, code), () =>
      this.exec(
        `UPDATE messages SET status = 'failed', error_code = ?, error_message = ?, cost = 0, refunded_at = ?, failed_at = ?, updated_at = ?, sequence = sequence + 1, lease_owner = NULL, lease_expires_at = NULL, payload = NULL WHERE id = ? AND account_id = ? AND status IN ('queued', 'scheduled')${opts.notHandedOff ? ' AND handed_off_at IS NULL' : ''}`,
        [code, message.slice(0, 500), now, now, now, id, accountId],
      ),
    );
  }

  /** Runs one conditional status UPDATE of one message; when it moved the row, leaves its trail in the same unit. */
  private async moved(
    accountId: AccountId,
    id: string,
    step: TrailStep,
    update: () => Promise<number>,
  ): Promise<boolean> {
    return this.uow.transaction(async () => {
      if ((await update()) !== 1) return false;
      const row = await this.findOwned(accountId, id);
      if (row) await this.trail.record([{ row, steps: [step] }]);
      return true;
    });
  }

  /**
   * scheduled -> cancelled (cost 0, refunded_at = now), in the caller's refund transaction. Only while
   * no sender holds or held a lease on it (`lease_expires_at IS NULL`): a claimed row, even one whose
   * lease expired after a crash, may have reached the provider and is the sender's to settle. The
   * sender's claim is conditional on `status = 'scheduled'`, so exactly one of the two UPDATEs wins.
   * `paid` is what the caller will refund: compared too, so the refund matches what was taken.
   */
  async markCancelled(
    accountId: AccountId,
    id: string,
    paid: { cost: number; paidFrom: string | null },
    now: number,
  ): Promise<boolean> {
    return this.moved(accountId, id, apiStep('cancelled', now), () =>
      this.exec(
        `UPDATE messages SET status = 'cancelled', cost = 0, refunded_at = ?, updated_at = ?, sequence = sequence + 1, payload = NULL
         WHERE id = ? AND account_id = ? AND status = 'scheduled' AND lease_expires_at IS NULL AND cost = ? AND COALESCE(paid_from, '') = ?`,
        [now, now, id, accountId, paid.cost, paid.paidFrom ?? ''],
      ),
    );
  }

  /**
   * Claims a message id that was never paid or recorded (a bulk row of a cancelled job) as `failed`
   * with `code`, cost 0, so a late insert of the same id (a stalled runner) fails on the key and rolls
   * its payment back. False when the id exists already.
   */
  async insertUnpaidFailure(
    m: {
      id: string;
      accountId: AccountId;
      channel: string;
      messageType: string;
      recipient: string;
      bulkJobId: string;
      rowIndex: number;
      code: MessageFailureCode;
      message: string;
    },
    now: number,
  ): Promise<boolean> {
    try {
      await this.uow.transaction(async () => {
        await this.exec(
          `INSERT INTO messages (id, account_id, channel, message_type, recipient, status, cost, error_code, error_message, bulk_job_id, row_index, attempts, created_at, updated_at, failed_at, sequence)
           VALUES (?, ?, ?, ?, ?, 'failed', 0, ?, ?, ?, ?, 0, ?, ?, ?, 1)`,
          [
            m.id,
            m.accountId,
            m.channel.slice(0, 20),
            m.messageType.slice(0, 20),
            m.recipient.slice(0, 320),
            m.code,
            m.message.slice(0, 500),
            m.bulkJobId,
            m.rowIndex,
            now,
            now,
            now,
          ],
        );
        await this.trail.firstSteps([{ id: m.id, status: 'failed' }], now);
      });
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
  async markHandedOff(accountId: AccountId, id: string, now: number): Promise<boolean> {
    const changed = await this.exec(
      "UPDATE messages SET handed_off_at = ?, updated_at = ? WHERE id = ? AND account_id = ? AND status IN ('queued', 'scheduled') AND handed_off_at IS NULL",
      [now, now, id, accountId],
    );
    return changed === 1;
  }

  /**
   * Takes the hand-off mark back from a queued message the provider refused to take (a rate limit):
   * it was not delivered, so the next attempt may send it. False when it was settled meanwhile.
   */
  async clearHandOff(accountId: AccountId, id: string, now: number): Promise<boolean> {
    const changed = await this.exec(
      "UPDATE messages SET handed_off_at = NULL, updated_at = ? WHERE id = ? AND account_id = ? AND status = 'queued'",
      [now, id, accountId],
    );
    return changed === 1;
  }

  /** A failed (refunded) message paid again for a retry: back to queued, only if still failed. */
  async requeue(
    accountId: AccountId,
    id: string,
    funding: Funding,
    msg: Pick<ValidatedMessage, 'encoding' | 'segments'>,
    now: number,
  ): Promise<boolean> {
    return this.moved(accountId, id, apiStep('queued', now), () =>
      this.exec(
        "UPDATE messages SET status = 'queued', cost = ?, paid_from = ?, encoding = ?, segments = ?, refunded_at = NULL, usage_counted_at = NULL, error_code = NULL, error_message = NULL, failed_at = NULL, provider_error_code = NULL, handed_off_at = NULL, updated_at = ?, sequence = sequence + 1 WHERE id = ? AND account_id = ? AND status = 'failed'",
        [funding.amount, funding.source, msg.encoding ?? null, msg.segments ?? null, now, id, accountId],
      ),
    );
  }

  async findOwned(accountId: AccountId, id: string): Promise<MessageEntity | null> {
    return this.repo.findOneBy({ accountId, id });
  }

  /** Those of these ids the account has in the log, by id (one query). */
  async findOwnedMany(accountId: AccountId, ids: string[]): Promise<Map<string, MessageEntity>> {
    if (!ids.length) return new Map();
    const rows = await this.repo.findBy({ accountId, id: In(ids) });
    return new Map(rows.map((r) => [r.id, r]));
  }

  /**
   * Newest first keyed by (created_at, id) (ix_messages_account_created, or ix_messages_bulk for a job's),
   * or by last change keyed by (updated_at, id) (ix_messages_account_updated), so a poller with
   * updatedSince misses no change.
   */
  async list(accountId: AccountId, f: ListFilter): Promise<MessageEntity[]> {
    return this.listQuery(accountId, f).getMany();
  }

  /** The list's statement (for the plans test). */
  listStatement(accountId: AccountId, f: ListFilter): Stmt {
    const [text, params] = this.listQuery(accountId, f).getQueryAndParameters();
    return { sql: text, params: params as SqlParam[] };
  }

  private listQuery(accountId: AccountId, f: ListFilter): SelectQueryBuilder<MessageEntity> {
    const qb = this.repo.createQueryBuilder('m').where('m.account_id = :accountId', { accountId });
    if (f.status) qb.andWhere('m.status = :status', { status: f.status });
    if (f.channel) qb.andWhere('m.channel = :channel', { channel: f.channel });
    if (f.bulkJobId) qb.andWhere('m.bulk_job_id = :bulkJobId', { bulkJobId: f.bulkJobId });
    if (f.updatedSince !== undefined) qb.andWhere('m.updated_at >= :updatedSince', { updatedSince: f.updatedSince });
    if (f.order === 'updated') {
      if (f.after)
        qb.andWhere('(m.updated_at > :au OR (m.updated_at = :au AND m.id > :aid))', {
          au: f.after.updatedAt ?? 0,
          aid: f.after.id,
        });
      return qb.orderBy('m.updated_at', 'ASC').addOrderBy('m.id', 'ASC').limit(f.limit);
    }
    // Written as a range on created_at and then the tie (a nested OR is no range for every planner).
    if (f.after)
      qb.andWhere('m.created_at <= :ac AND (m.created_at < :ac OR m.id < :aid)', {
        ac: f.after.createdAt ?? 0,
        aid: f.after.id,
      });
    return qb.orderBy('m.created_at', 'DESC').addOrderBy('m.id', 'DESC').limit(f.limit);
  }

  /** Runs one write (in the open unit of work, if any); returns the rows it changed. */
  private async exec(sql: string, params: SqlParam[]): Promise<number> {
    return this.uow.exec({ sql, params });
  }
}

function apiStep(status: MessageStatus, at: number, errorCode: string | null = null): TrailStep {
  return { status, at, source: 'api', providerStatus: null, errorCode };
}
