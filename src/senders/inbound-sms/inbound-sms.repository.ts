import { Injectable } from '@nestjs/common';
import { inList, sql } from '../../database/sql';
import type { Tx } from '../../database/unit-of-work';

export interface InboundSmsRecord {
  id: string;
  accountId: string | null;
  senderId: string | null;
  fromAddress: string;
  toAddress: string;
  text: string;
  providerMessageId: string | null;
  receivedAt: number;
}

/** Statements of the inbound SMS store; callers pass the unit of work they run in. */
@Injectable()
export class InboundSmsRepository {
  /**
   * Approved senders of any account whose name is one of `nameKeys` (lower-cased). Across accounts
   * by design: an SMS arrives addressed to a sender name, not to an account.
   */
  async approvedSendersAnyByName(tx: Tx, nameKeys: string[]): Promise<{ senderId: string; accountId: string }[]> {
    if (nameKeys.length === 0) return [];
    const rows = await tx.rows<{ id: string; account_id: string }>(
      sql(
        `SELECT id, account_id FROM sms_senders WHERE status = 'approved' AND name_key IN (${inList(nameKeys.length)}) ORDER BY id`,
        ...nameKeys,
      ),
    );
    return rows.map((r) => ({ senderId: String(r.id), accountId: String(r.account_id) }));
  }

  async insert(tx: Tx, r: InboundSmsRecord): Promise<void> {
    await tx.run(
      sql(
        'INSERT INTO inbound_sms (id, account_id, sender_id, from_address, to_address, text, provider_message_id, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        r.id,
        r.accountId,
        r.senderId,
        r.fromAddress,
        r.toAddress,
        r.text,
        r.providerMessageId,
        r.receivedAt,
      ),
    );
  }
}
