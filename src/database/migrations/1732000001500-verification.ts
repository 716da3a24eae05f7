import { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createIndex, createTable } from '../migration-helpers';

// Owned by the verification module: one-time codes and the per-recipient send window.
export class Verification1732000001500 implements MigrationInterface {
  name = 'Verification1732000001500';

  async up(qr: QueryRunner): Promise<void> {
    await createTable(qr, {
      name: 'verifications',
      columns: [
        col.id(),
        col.ref('account_id'),
        col.str('channel', 20),
        col.str('recipient', 320),
        col.str('code_hash', 64),
        col.str('status', 10),
        col.int('attempts'),
        col.ref('message_id', true),
        col.ms('expires_at'),
        col.ms('approved_at', true),
        col.ms('created_at'),
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
    await createIndex(qr, 'verifications', { name: 'ix_verifications_account', columnNames: ['account_id', 'id'] });
    await createTable(qr, {
      name: 'verification_send_windows',
      columns: [
        { name: 'id', type: 'varchar', length: '64', isPrimary: true },
        col.ref('account_id'),
        col.ms('window_started_at'),
        col.int('sends'),
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
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable('verification_send_windows');
    await qr.dropTable('verifications');
  }
}
