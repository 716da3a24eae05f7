import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { col, createIndex, createTable } from '../migration-helpers';

// Owned by the webhooks module: event subscriptions (endpoints signed with Standard Webhooks) and the
// outbox columns that tie a delivery to its endpoint and keep its webhook-id across redeliveries.
export class EventEndpoints1732000040000 implements MigrationInterface {
  name = 'EventEndpoints1732000040000';

  async up(qr: QueryRunner): Promise<void> {
    await createTable(qr, {
      name: 'webhook_event_endpoints',
      columns: [
        col.id(),
        col.ref('account_id'),
        col.text('url', false),
        col.str('description', 500, true),
        // JSON array of event names, `x.*` prefixes or `*`.
        col.text('events', false),
        col.str('status', 16),
        col.str('disabled_reason', 500, true),
        col.text('sealed_secret', false),
        col.text('previous_sealed_secret', true),
        col.ms('previous_secret_expires_at', true),
        col.int('consecutive_failures'),
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
    await createIndex(qr, 'webhook_event_endpoints', {
      name: 'ix_webhook_event_endpoints_account',
      columnNames: ['account_id', 'status'],
    });

    await qr.addColumn('webhook_deliveries', new TableColumn(col.ref('endpoint_id', true)));
    await qr.addColumn('webhook_deliveries', new TableColumn(col.ref('webhook_id', true)));
    await createIndex(qr, 'webhook_deliveries', {
      name: 'ix_webhook_deliveries_endpoint',
      columnNames: ['account_id', 'endpoint_id', 'id'],
    });
    await createIndex(qr, 'webhook_deliveries', {
      name: 'ix_webhook_deliveries_event',
      columnNames: ['account_id', 'event', 'id'],
    });
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropIndex('webhook_deliveries', 'ix_webhook_deliveries_event');
    await qr.dropIndex('webhook_deliveries', 'ix_webhook_deliveries_endpoint');
    await qr.dropColumn('webhook_deliveries', 'webhook_id');
    await qr.dropColumn('webhook_deliveries', 'endpoint_id');
    await qr.dropTable('webhook_event_endpoints');
  }
}
