import { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createIndex, createTable } from '../migration-helpers';

// Owned by the webhooks module: the durable outbox, its attempts, and per-account webhook targets.
export class Webhooks1732000004000 implements MigrationInterface {
  name = 'Webhooks1732000004000';

  async up(qr: QueryRunner): Promise<void> {
    const account = {
      columnNames: ['account_id'],
      referencedTableName: 'accounts',
      referencedColumnNames: ['id'],
      onDelete: 'CASCADE',
    };
    await createTable(qr, {
      name: 'webhook_deliveries',
      columns: [
        col.id(),
        col.ref('account_id'),
        col.str('event', 100),
        col.text('url', false),
        col.text('body', false),
        col.text('sealed_secret', false),
        col.bool('api_key_header', false),
        col.str('status', 16),
        col.int('attempt_count'),
        col.ms('next_attempt_at'),
        col.str('lease_owner', 64, true),
        col.ms('lease_expires_at', true),
        col.int('last_http_status', null),
        col.str('last_error', 500, true),
        col.ms('created_at'),
        col.ms('updated_at'),
        col.ms('completed_at', true),
      ],
      foreignKeys: [account],
    });
    await createIndex(qr, 'webhook_deliveries', {
      name: 'ix_webhook_deliveries_due',
      columnNames: ['status', 'next_attempt_at'],
    });
    await createIndex(qr, 'webhook_deliveries', {
      name: 'ix_webhook_deliveries_account',
      columnNames: ['account_id', 'id'],
    });
    await createIndex(qr, 'webhook_deliveries', {
      name: 'ix_webhook_deliveries_account_status',
      columnNames: ['account_id', 'status', 'id'],
    });

    await createTable(qr, {
      name: 'webhook_attempts',
      columns: [
        col.id(),
        col.ref('delivery_id'),
        { name: 'attempt_no', type: 'int' },
        col.ms('started_at'),
        { name: 'duration_ms', type: 'int' },
        col.int('http_status', null),
        col.str('error', 500, true),
        col.bool('success', false),
      ],
      foreignKeys: [
        {
          columnNames: ['delivery_id'],
          referencedTableName: 'webhook_deliveries',
          referencedColumnNames: ['id'],
          onDelete: 'CASCADE',
        },
      ],
    });
    // One row per attempt number: a second recording of the same attempt fails loudly.
    await createIndex(qr, 'webhook_attempts', {
      name: 'uq_webhook_attempts_no',
      columnNames: ['delivery_id', 'attempt_no'],
      isUnique: true,
    });

    await createTable(qr, {
      name: 'webhook_endpoints',
      columns: [
        col.id(),
        col.ref('account_id'),
        col.str('kind', 32),
        col.text('url', false),
        col.text('sealed_secret', false),
        col.str('secret_last4', 8),
        col.ms('created_at'),
        col.ms('updated_at'),
      ],
      foreignKeys: [account],
    });
    await createIndex(qr, 'webhook_endpoints', {
      name: 'uq_webhook_endpoints_kind',
      columnNames: ['account_id', 'kind'],
      isUnique: true,
    });
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable('webhook_endpoints');
    await qr.dropTable('webhook_attempts');
    await qr.dropTable('webhook_deliveries');
  }
}
