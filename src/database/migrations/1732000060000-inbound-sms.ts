import { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createIndex, createTable } from '../migration-helpers';

// Owned by the senders module (inbound SMS): what the SMSC delivered to our numbers and sender names.
// `account_id` is null when the destination matched no account (kept for the operator, no event).
export class InboundSms1732000060000 implements MigrationInterface {
  name = 'InboundSms1732000060000';

  async up(qr: QueryRunner): Promise<void> {
    await createTable(qr, {
      name: 'inbound_sms',
      columns: [
        col.id(),
        col.ref('account_id', true),
        col.ref('sender_id', true),
        col.str('from_address', 32),
        col.str('to_address', 32),
        col.text('text', false),
        col.str('provider_message_id', 200, true),
        col.ms('received_at'),
      ],
      foreignKeys: [
        {
          columnNames: ['account_id'],
          referencedTableName: 'accounts',
          referencedColumnNames: ['id'],
          onDelete: 'CASCADE',
        },
      ],
    });
    await createIndex(qr, 'inbound_sms', {
      name: 'ix_inbound_sms_account_received',
      columnNames: ['account_id', 'received_at'],
    });
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable('inbound_sms');
  }
}
