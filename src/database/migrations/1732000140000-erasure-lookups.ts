import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndex, isMysql } from '../migration-helpers';

/**
 * Erasure of one recipient (privacy module, issue 29) finds an account's rows by the recipient: one
 * index per table that names recipients, so each batch is an index range, never a table scan.
 * bulk_rows has no account column: its rows are found by address and then kept to the account's jobs.
 * inbound_sms.from_address (32) must hold the 64-character hash that replaces an erased number
 * (SQLite does not enforce varchar lengths).
 */
export class ErasureLookups1732000140000 implements MigrationInterface {
  name = 'ErasureLookups1732000140000';

  async up(qr: QueryRunner): Promise<void> {
    await createIndex(qr, 'messages', { name: 'ix_messages_recipient', columnNames: ['account_id', 'recipient'] });
    await createIndex(qr, 'verifications', {
      name: 'ix_verifications_recipient',
      columnNames: ['account_id', 'recipient'],
    });
    await createIndex(qr, 'inbound_sms', { name: 'ix_inbound_sms_from', columnNames: ['account_id', 'from_address'] });
    await createIndex(qr, 'web_inbound_messages', {
      name: 'ix_web_inbound_chat',
      columnNames: ['account_id', 'remote_chat_id'],
    });
    await createIndex(qr, 'bulk_rows', { name: 'ix_bulk_rows_to', columnNames: ['to_addr'] });
    if (isMysql(qr)) await qr.query('ALTER TABLE inbound_sms MODIFY from_address varchar(64) NOT NULL');
  }

  async down(qr: QueryRunner): Promise<void> {
    if (isMysql(qr)) await qr.query('ALTER TABLE inbound_sms MODIFY from_address varchar(32) NOT NULL');
    await qr.dropIndex('bulk_rows', 'ix_bulk_rows_to');
    await qr.dropIndex('web_inbound_messages', 'ix_web_inbound_chat');
    await qr.dropIndex('inbound_sms', 'ix_inbound_sms_from');
    await qr.dropIndex('verifications', 'ix_verifications_recipient');
    await qr.dropIndex('messages', 'ix_messages_recipient');
  }
}
