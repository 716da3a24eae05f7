import { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createIndex, createTable } from '../migration-helpers';

/**
 * Owned by the privacy module: the audit trail of who changed what in an account (never secrets).
 * Listed newest first by (account, created_at, id), filtered by type; purged by created_at.
 */
export class AuditEvents1732000142000 implements MigrationInterface {
  name = 'AuditEvents1732000142000';

  async up(qr: QueryRunner): Promise<void> {
    await createTable(qr, {
      name: 'audit_events',
      columns: [
        col.id(),
        col.ref('account_id'),
        col.str('type', 60),
        col.str('actor', 60),
        col.str('request_id', 80, true),
        col.str('target', 100, true),
        col.text('changes', false),
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
    await createIndex(qr, 'audit_events', {
      name: 'ix_audit_events_account',
      columnNames: ['account_id', 'created_at', 'id'],
    });
    await createIndex(qr, 'audit_events', {
      name: 'ix_audit_events_type',
      columnNames: ['account_id', 'type', 'created_at', 'id'],
    });
    await createIndex(qr, 'audit_events', { name: 'ix_audit_events_created', columnNames: ['created_at'] });
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable('audit_events');
  }
}
