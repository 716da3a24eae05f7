import { Injectable } from '@nestjs/common';
import { decoders, inList, query, Row, sql, num, str } from '../../database/sql';
import type { Tx } from '../../database/unit-of-work';
import { AccountId, accountIdOf } from '../../common/account-id';

export interface InboundSmsRecord {
  id: string;
  accountId: AccountId | null;
  senderId: string | null;
  fromAddress: string;
  toAddress: string;
  text: string;
  providerMessageId: string | null;
  receivedAt: number;
  /** 1 for a whole SMS; a concatenated one: its parts, and how many of them arrived. */
  partsTotal: number;
  partsReceived: number;
  /** What a redelivery of the same SMS would carry (see InboundSmsService). */
  dedupeKey: string | null;
}

/** One part of a concatenated SMS; `inboundSmsId` null while its set is open. */
export interface InboundSmsPartRecord {
  id: string;
  groupKey: string;
  partKey: string;
  seq: number;
  total: number;
  fromAddress: string;
  toAddress: string;
  text: string;
  receivedAt: number;
  inboundSmsId: string | null;
}

/** Filters of GET /api/v2/sms/inbound (all optional); `beforeId` is the cursor. */
export interface InboundSmsFilter {
  senderName?: string;
  from?: string;
  since?: number;
  until?: number;
  beforeId?: string | null;
  limit: number;
}

const SMS_COLUMNS =
  's.id, s.account_id, s.sender_id, s.from_address, s.to_address, s.text, s.provider_message_id, s.received_at, s.parts_total, s.parts_received, s.dedupe_key';
const toSms = (r: Row): InboundSmsRecord => ({
  id: String(r.id),
  accountId: r.account_id === null ? null : accountIdOf(String(r.account_id)),
  senderId: str(r.sender_id),
  fromAddress: String(r.from_address),
  toAddress: String(r.to_address),
  text: String(r.text),
  providerMessageId: str(r.provider_message_id),
  receivedAt: num(r.received_at),
  partsTotal: num(r.parts_total),
  partsReceived: num(r.parts_received),
  dedupeKey: str(r.dedupe_key),
});
const PART_COLUMNS = 'id, group_key, part_key, seq, total, from_address, to_address, text, received_at, inbound_sms_id';
const toPart = (r: Row): InboundSmsPartRecord => ({
  id: String(r.id),
  groupKey: String(r.group_key),
  partKey: String(r.part_key),
  seq: num(r.seq),
  total: num(r.total),
  fromAddress: String(r.from_address),
  toAddress: String(r.to_address),
  text: String(r.text),
  receivedAt: num(r.received_at),
  inboundSmsId: str(r.inbound_sms_id),
});
/** An approved sender found by name across accounts. */
const toSenderOwner = (r: Row): { senderId: string; accountId: AccountId } => ({
  senderId: String(r.id),
  accountId: accountIdOf(String(r.account_id)),
});
/** An account's approved sender (the account is the caller's). */
const toNamedSender = (r: Row): { senderId: string; name: string } => ({
  senderId: String(r.id),
  name: String(r.name),
});
const toDedupeKey = (r: Row): string | null => str(r.dedupe_key);
const toGroupKey = (r: Row): string => String(r.group_key);

/** Statements of the inbound SMS store; callers pass the unit of work they run in. */
@Injectable()
export class InboundSmsRepository {
  /**
   * Approved senders of any account whose name is one of `nameKeys` (lower-cased). Across accounts
   * by design: an SMS arrives addressed to a sender name, not to an account.
   */
  async approvedSendersAnyByName(tx: Tx, nameKeys: string[]): Promise<{ senderId: string; accountId: AccountId }[]> {
    if (nameKeys.length === 0) return [];
    return tx.read(
      query(
        toSenderOwner,
        sql(
          `SELECT id, account_id FROM sms_senders WHERE status = 'approved' AND name_key IN (${inList(nameKeys.length)}) ORDER BY id`,
          ...nameKeys,
        ),
      ),
    );
  }

  /** The account's approved sender named `nameKey` (lower-cased), or with null its default approved sender. */
  async approvedSenderOf(
    tx: Tx,
    accountId: AccountId,
    nameKey: string | null,
  ): Promise<{ senderId: string; accountId: AccountId; name: string } | null> {
    const which = nameKey === null ? sql('is_default = 1') : sql('name_key = ?', nameKey);
    const rows = await tx.read(
      query(
        toNamedSender,
        sql(
          `SELECT id, name FROM sms_senders WHERE account_id = ? AND status = 'approved' AND ${which.sql} ORDER BY id LIMIT 1`,
          accountId,
          ...which.params,
        ),
      ),
    );
    return rows.length ? { senderId: rows[0].senderId, accountId, name: rows[0].name } : null;
  }

  async insert(tx: Tx, r: InboundSmsRecord): Promise<void> {
    await tx.run(
      sql(
        'INSERT INTO inbound_sms (id, account_id, sender_id, from_address, to_address, text, provider_message_id, received_at, parts_total, parts_received, dedupe_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        r.id,
        r.accountId,
        r.senderId,
        r.fromAddress,
        r.toAddress,
        r.text,
        r.providerMessageId,
        r.receivedAt,
        r.partsTotal,
        r.partsReceived,
        r.dedupeKey,
      ),
    );
  }

  /** The dedupe key of the latest SMS from `from` to `to` received at or after `since` (null: none). */
  async latestKeyOfPair(tx: Tx, from: string, to: string, since: number): Promise<string | null | undefined> {
    const keys = await tx.read(
      query(
        toDedupeKey,
        sql(
          'SELECT dedupe_key FROM inbound_sms WHERE from_address = ? AND to_address = ? AND received_at >= ? ORDER BY received_at DESC, id DESC LIMIT 1',
          from,
          to,
          since,
        ),
      ),
    );
    return keys.length === 0 ? undefined : keys[0];
  }

  /** The parts of a set not joined yet. */
  async openParts(tx: Tx, groupKey: string): Promise<InboundSmsPartRecord[]> {
    return tx.read(
      query(
        toPart,
        sql(
          `SELECT ${PART_COLUMNS} FROM inbound_sms_parts WHERE group_key = ? AND inbound_sms_id IS NULL ORDER BY seq`,
          groupKey,
        ),
      ),
    );
  }

  /** Whether a joined part with this key arrived at or after `since` (its redelivery). */
  async joinedPartSince(tx: Tx, partKey: string, since: number): Promise<boolean> {
    const ids = await tx.read(
      query(
        decoders.id,
        sql(
          'SELECT id FROM inbound_sms_parts WHERE part_key = ? AND inbound_sms_id IS NOT NULL AND received_at >= ? LIMIT 1',
          partKey,
          since,
        ),
      ),
    );
    return ids.length > 0;
  }

  async insertPart(tx: Tx, p: InboundSmsPartRecord): Promise<void> {
    await tx.run(
      sql(
        `INSERT INTO inbound_sms_parts (${PART_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        p.id,
        p.groupKey,
        p.partKey,
        p.seq,
        p.total,
        p.fromAddress,
        p.toAddress,
        p.text,
        p.receivedAt,
        p.inboundSmsId,
      ),
    );
  }

  /** Closes a set: its open parts now belong to `inboundSmsId`. */
  async joinParts(tx: Tx, groupKey: string, inboundSmsId: string): Promise<number> {
    const res = await tx.run(
      sql(
        'UPDATE inbound_sms_parts SET inbound_sms_id = ? WHERE group_key = ? AND inbound_sms_id IS NULL',
        inboundSmsId,
        groupKey,
      ),
    );
    return res.affected;
  }

  /** Sets with an open part received before `before` (oldest first, at most `limit`). */
  async staleGroups(tx: Tx, before: number, limit: number): Promise<string[]> {
    return tx.read(
      query(
        toGroupKey,
        sql(
          'SELECT group_key, MIN(received_at) AS first_at FROM inbound_sms_parts WHERE inbound_sms_id IS NULL AND received_at < ? GROUP BY group_key ORDER BY first_at LIMIT ?',
          before,
          limit,
        ),
      ),
    );
  }

  /** One page of an account's inbound SMS, newest first. */
  async list(tx: Tx, accountId: AccountId, f: InboundSmsFilter): Promise<InboundSmsRecord[]> {
    const where = ['s.account_id = ?'];
    const params: (string | number)[] = [accountId];
    if (f.senderName !== undefined) {
      where.push('s.sender_id IN (SELECT id FROM sms_senders WHERE account_id = ? AND name_key = ?)');
      params.push(accountId, f.senderName.toLowerCase());
    }
    if (f.from !== undefined) {
      where.push('s.from_address = ?');
      params.push(f.from);
    }
    if (f.since !== undefined) {
      where.push('s.received_at >= ?');
      params.push(f.since);
    }
    if (f.until !== undefined) {
      where.push('s.received_at < ?');
      params.push(f.until);
    }
    if (f.beforeId) {
      where.push('s.id < ?');
      params.push(f.beforeId);
    }
    return tx.read(
      query(
        toSms,
        sql(
          `SELECT ${SMS_COLUMNS} FROM inbound_sms s WHERE ${where.join(' AND ')} ORDER BY s.id DESC LIMIT ?`,
          ...params,
          f.limit,
        ),
      ),
    );
  }

  /** The parts of these messages, in order. */
  async partsOf(tx: Tx, ids: string[]): Promise<InboundSmsPartRecord[]> {
    if (ids.length === 0) return [];
    return tx.read(
      query(
        toPart,
        sql(
          `SELECT ${PART_COLUMNS} FROM inbound_sms_parts WHERE inbound_sms_id IN (${inList(ids.length)}) ORDER BY inbound_sms_id, seq`,
          ...ids,
        ),
      ),
    );
  }
}
