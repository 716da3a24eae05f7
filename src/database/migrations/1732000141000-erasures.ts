import { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createIndex, createTable } from '../migration-helpers';

/**
 * Owned by the privacy module: one erasure per (account, recipient hash), unique, so a repeated
 * request finds it. `recipient` holds the plain recipient only while the erasure runs (the loop needs
 * it to find rows) and is cleared when it completes. `run` counts requests: a completion is written
 * only for the run it worked on, so a request that reopens a finishing erasure is never lost.
 */
export class Erasures1732000141000 implements MigrationInterface {
  name = 'Erasures1732000141000';

  async up(qr: QueryRunner): Promise<void> {
    await createTable(qr, {
      name: 'erasures',
      columns: [
        col.id(),
        col.ref('account_id'),
        col.str('recipient_hash', 64),
        col.str('recipient', 320, true),
        col.str('status', 16),
        col.text('counts', false),
        col.int('run', 1),
        col.str('lease_owner', 40, true),
        col.ms('lease_expires_at', true),
        col.ms('created_at'),
        col.ms('updated_at'),
        col.ms('completed_at', true),
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
    await createIndex(qr, 'erasures', {
      name: 'uq_erasures_recipient',
      columnNames: ['account_id', 'recipient_hash'],
      isUnique: true,
    });
    await createIndex(qr, 'erasures', { name: 'ix_erasures_status', columnNames: ['status', 'lease_expires_at'] });
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable('erasures');
  }
}
