import { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createIndex, createTable } from '../migration-helpers';

// Owned by the senders module.
export class Senders1732000003000 implements MigrationInterface {
  name = 'Senders1732000003000';

  async up(qr: QueryRunner): Promise<void> {
    await createTable(qr, {
      name: 'sms_senders',
      columns: [
        col.id(),
        col.ref('account_id'),
        col.str('name', 11),
        col.str('name_key', 11),
        col.str('status', 16),
        col.bool('is_default', false),
        col.ref('default_key', true),
        col.text('webhook_url'),
        col.text('sealed_webhook_secret'),
        col.str('review_reason', 500, true),
        col.ms('reviewed_at', true),
        col.ms('created_at'),
        col.ms('updated_at'),
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
    await createIndex(qr, 'sms_senders', {
      name: 'uq_sms_senders_account_name',
      columnNames: ['account_id', 'name_key'],
      isUnique: true,
    });
    // NULLs never collide (both dialects), so this allows at most one default sender per account.
    await createIndex(qr, 'sms_senders', {
      name: 'uq_sms_senders_default',
      columnNames: ['default_key'],
      isUnique: true,
    });
    await createIndex(qr, 'sms_senders', {
      name: 'ix_sms_senders_account_status',
      columnNames: ['account_id', 'status'],
    });
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable('sms_senders');
  }
}
