import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { col, createIndex, createTable } from '../migration-helpers';

// Owned by messaging (issue 13, the message lifecycle and delivery receipts): the message's receipt
// times and per-message change counter, its status history, the provider ids a receipt is matched
// by (one per SMS part), receipts that arrived before their message was recorded, and the sandbox's
// simulated receipts (due times on the sandbox's own delivery rows).
export class MessageLifecycle1732000050000 implements MigrationInterface {
  name = 'MessageLifecycle1732000050000';

  async up(qr: QueryRunner): Promise<void> {
    await qr.addColumns('messages', [
      new TableColumn(col.ms('delivered_at', true)),
      new TableColumn(col.ms('read_at', true)),
      new TableColumn(col.ms('failed_at', true)),
      new TableColumn(col.str('provider_error_code', 100, true)),
      new TableColumn(col.int('sequence', 0)),
    ]);
    // GET /messages?order=updated / updatedSince: keyset paging on (updated_at, id) within an account.
    await createIndex(qr, 'messages', {
      name: 'ix_messages_account_updated',
      columnNames: ['account_id', 'updated_at', 'id'],
    });

    await createTable(qr, {
      name: 'message_status_history',
      columns: [
        { name: 'message_id', type: 'varchar', length: '80', isPrimary: true },
        { name: 'seq', type: 'int', isPrimary: true },
        col.str('status', 16),
        col.ms('at'),
        col.str('source', 10),
        col.str('provider_status', 100, true),
        col.str('error_code', 50, true),
      ],
    });

    await createTable(qr, {
      name: 'message_provider_refs',
      columns: [
        { name: 'provider_message_id', type: 'varchar', length: '200', isPrimary: true },
        { name: 'message_id', type: 'varchar', length: '80', isPrimary: true },
        col.ref('account_id'),
        col.int('part_index', 0),
        col.int('part_count', 1),
        col.str('status', 16),
        col.str('provider_error_code', 100, true),
        col.ms('created_at'),
      ],
    });
    await createIndex(qr, 'message_provider_refs', {
      name: 'ix_message_provider_refs_message',
      columnNames: ['message_id'],
    });

    await createTable(qr, {
      name: 'pending_receipts',
      columns: [
        col.id(),
        col.str('provider_message_id', 200),
        col.str('status', 16),
        col.str('provider_status', 100),
        col.str('error_code', 50, true),
        col.str('provider_error_code', 100, true),
        col.ms('at'),
        col.ms('expires_at'),
      ],
    });
    await createIndex(qr, 'pending_receipts', {
      name: 'ix_pending_receipts_provider_id',
      columnNames: ['provider_message_id'],
    });
    await createIndex(qr, 'pending_receipts', { name: 'ix_pending_receipts_expiry', columnNames: ['expires_at'] });

    await qr.addColumns('sandbox_deliveries', [
      new TableColumn(col.ms('receipt_due_at', true)),
      new TableColumn(col.str('receipt_stage', 10, true)),
      new TableColumn(col.str('receipt_lease_owner', 40, true)),
      new TableColumn(col.ms('receipt_lease_expires_at', true)),
    ]);
    await createIndex(qr, 'sandbox_deliveries', {
      name: 'ix_sandbox_deliveries_receipt_due',
      columnNames: ['receipt_due_at'],
    });
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropIndex('sandbox_deliveries', 'ix_sandbox_deliveries_receipt_due');
    for (const c of ['receipt_lease_expires_at', 'receipt_lease_owner', 'receipt_stage', 'receipt_due_at'])
      await qr.dropColumn('sandbox_deliveries', c);
    await qr.dropTable('pending_receipts');
    await qr.dropTable('message_provider_refs');
    await qr.dropTable('message_status_history');
    await qr.dropIndex('messages', 'ix_messages_account_updated');
    for (const c of ['sequence', 'provider_error_code', 'failed_at', 'read_at', 'delivered_at'])
      await qr.dropColumn('messages', c);
  }
}
