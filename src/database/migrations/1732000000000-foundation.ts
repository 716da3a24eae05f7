import { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createIndex, createTable } from '../migration-helpers';

export class Foundation1732000000000 implements MigrationInterface {
  name = 'Foundation1732000000000';

  async up(qr: QueryRunner): Promise<void> {
    await createTable(qr, {
      name: 'accounts',
      columns: [
        col.id(),
        col.str('name', 200),
        col.bool('phone_verified', true),
        col.bool('subscription_active', true),
        col.bigint('wallet_balance'),
        col.str('currency', 3),
        col.str('plan_name', 100, true),
        col.int('message_quota'),
        col.int('messages_used'),
        col.int('free_messages'),
        col.ms('created_at'),
        col.ms('updated_at'),
      ],
    });
    await createTable(qr, {
      name: 'api_keys',
      columns: [
        col.id(),
        col.ref('account_id'),
        { name: 'key_hash', type: 'varchar', length: '64' },
        col.str('key_prefix', 16),
        col.str('role', 10),
        col.text('permissions', false),
        col.ms('created_at'),
        col.ms('revoked_at', true),
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
    await createIndex(qr, 'api_keys', { name: 'uq_api_keys_hash', columnNames: ['key_hash'], isUnique: true });
    await createIndex(qr, 'api_keys', { name: 'ix_api_keys_account', columnNames: ['account_id'] });
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable('api_keys');
    await qr.dropTable('accounts');
  }
}
