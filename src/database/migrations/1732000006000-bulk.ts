import { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createIndex, createTable, isMysql } from '../migration-helpers';

// Owned by the bulk module: jobs (with their idempotency key and dispatch lease) and their rows.
export class Bulk1732000006000 implements MigrationInterface {
  name = 'Bulk1732000006000';

  async up(qr: QueryRunner): Promise<void> {
    await createTable(qr, {
      name: 'bulk_jobs',
      columns: [
        col.id(),
        col.ref('account_id'),
        col.str('name', 200, true),
        col.str('status', 16),
        col.int('messages_per_second'),
        col.str('pause_reason', 32, true),
        col.int('total'),
        col.int('validated_count'),
        col.int('pending_count'),
        col.int('sent_count'),
        col.int('failed_count'),
        col.int('cancelled_count'),
        col.int('invalid_count'),
        col.str('error_code', 40, true),
        col.text('error_message'),
        // Set only once intake completed; NULLs never collide in the unique index. The index is on the
        // SHA-256 of the key so keys compare byte for byte on every dialect (MySQL collations ignore
        // case and trailing spaces).
        col.str('idempotency_key', 200, true),
        col.str('idempotency_key_hash', 64, true),
        // Fingerprints of name + messagesPerSecond + messages: as sent, and canonical (computed lazily).
        col.str('raw_hash', 64, true),
        col.str('request_hash', 64, true),
        col.ms('resume_at', true),
        col.str('lease_owner', 40, true),
        col.ms('lease_expires_at', true),
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
    await createIndex(qr, 'bulk_jobs', {
      name: 'uq_bulk_jobs_idem',
      columnNames: ['account_id', 'idempotency_key_hash'],
      isUnique: true,
    });
    await createIndex(qr, 'bulk_jobs', { name: 'ix_bulk_jobs_status', columnNames: ['status', 'id'] });
    await createIndex(qr, 'bulk_jobs', { name: 'ix_bulk_jobs_account', columnNames: ['account_id', 'id'] });
    await createTable(qr, {
      name: 'bulk_rows',
      columns: [
        { ...col.ref('job_id'), isPrimary: true },
        { name: 'idx', type: 'int', isPrimary: true },
        col.str('status', 10),
        col.str('to_addr', 320, true),
        col.str('channel', 32, true),
        { name: 'payload', type: isMysql(qr) ? 'mediumtext' : 'text', isNullable: false },
        col.ref('message_id', true),
        col.int('attempt'),
        col.str('error_code', 40, true),
        col.str('error_message', 500, true),
        col.ms('sent_at', true),
      ],
    });
    await createIndex(qr, 'bulk_rows', { name: 'ix_bulk_rows_status', columnNames: ['job_id', 'status', 'idx'] });
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable('bulk_rows');
    await qr.dropTable('bulk_jobs');
  }
}
