import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';
import { col, createIndex, createTable } from '../migration-helpers';

// Owned by the fraud module (verification pumping detection). Counters: codes sent, verified and
// sent to new numbers per (account, destination prefix, minute); old minutes are deleted by the
// sweep. Blocks: one row per block; `active_key` (`<accountId>|<prefix>`, `*|<prefix>` for the
// platform) is set while the block may be in force, so at most one is, and a send finds it by key.
export class FraudGuard1732000091000 implements MigrationInterface {
  name = 'FraudGuard1732000091000';

  async up(qr: QueryRunner): Promise<void> {
    await createTable(qr, {
      name: 'fraud_prefix_counters',
      columns: [
        { ...col.ref('account_id'), isPrimary: true },
        { ...col.str('prefix', 20), isPrimary: true },
        { ...col.bigint('minute'), isPrimary: true },
        col.int('sends'),
        col.int('verified'),
        col.int('new_numbers'),
      ],
    });
    await createIndex(qr, 'fraud_prefix_counters', { name: 'ix_fraud_counters_minute', columnNames: ['minute'] });
    await createTable(qr, {
      name: 'fraud_blocks',
      columns: [
        col.id(),
        col.ref('account_id', true),
        col.str('prefix', 20),
        col.str('reason', 20),
        col.int('sends'),
        col.int('verified'),
        col.int('accounts'),
        col.ms('created_at'),
        col.ms('until_at'),
        col.ms('ended_at', true),
        col.str('end_reason', 20, true),
        col.str('ended_by', 60, true),
        col.str('active_key', 80, true),
      ],
    });
    await qr.createIndex(
      'fraud_blocks',
      new TableIndex({ name: 'ux_fraud_blocks_active', columnNames: ['active_key'], isUnique: true }),
    );
    await createIndex(qr, 'fraud_blocks', {
      name: 'ix_fraud_blocks_account',
      columnNames: ['account_id', 'created_at'],
    });
    await createIndex(qr, 'fraud_blocks', { name: 'ix_fraud_blocks_prefix', columnNames: ['prefix', 'created_at'] });
    await createIndex(qr, 'fraud_blocks', { name: 'ix_fraud_blocks_until', columnNames: ['until_at'] });
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable('fraud_blocks');
    await qr.dropTable('fraud_prefix_counters');
  }
}
