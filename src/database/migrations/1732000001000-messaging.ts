import { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createIndex, createTable } from '../migration-helpers';

// Owned by the messaging module: the message log (with how each message was paid) and the sandbox
// provider's delivery record and injected faults (in the database so every replica sees them).
export class Messaging1732000001000 implements MigrationInterface {
  name = 'Messaging1732000001000';

  async up(qr: QueryRunner): Promise<void> {
    await createTable(qr, {
      name: 'messages',
      columns: [
        { ...col.id(), length: '80' },
        col.ref('account_id'),
        col.str('channel', 20),
        col.str('message_type', 20),
        col.str('recipient', 320),
        col.str('sender', 100, true),
        col.str('template_id', 40, true),
        col.str('status', 16),
        col.bigint('cost'),
        col.str('paid_from', 10, true),
        col.ms('refunded_at', true),
        col.str('provider_message_id', 200, true),
        col.str('error_code', 50, true),
        col.str('error_message', 500, true),
        col.str('bulk_job_id', 40, true),
        col.int('row_index', null),
        col.text('payload'),
        col.ms('scheduled_at', true),
        col.str('lease_owner', 40, true),
        col.ms('lease_expires_at', true),
        col.int('attempts'),
        col.ms('created_at'),
        col.ms('updated_at'),
        col.ms('sent_at', true),
      ],
    });
    await createIndex(qr, 'messages', { name: 'ix_messages_account', columnNames: ['account_id', 'id'] });
    await createIndex(qr, 'messages', { name: 'ix_messages_bulk', columnNames: ['bulk_job_id', 'id'] });
    await createIndex(qr, 'messages', { name: 'ix_messages_due', columnNames: ['status', 'scheduled_at'] });

    await createTable(qr, {
      name: 'sandbox_deliveries',
      columns: [
        col.id(),
        { name: 'message_id', type: 'varchar', length: '80' },
        col.ref('account_id'),
        col.str('channel', 20),
        col.str('recipient', 320),
        col.str('sender', 100, true),
        col.text('text'),
        col.str('subject', 300, true),
        col.str('bulk_job_id', 40, true),
        col.int('row_index', null),
        col.str('outcome', 10),
        col.str('provider_message_id', 100),
        col.ms('delivered_at'),
      ],
    });
    await createIndex(qr, 'sandbox_deliveries', {
      name: 'uq_sandbox_deliveries_message',
      columnNames: ['message_id'],
      isUnique: true,
    });
    await createIndex(qr, 'sandbox_deliveries', {
      name: 'ix_sandbox_deliveries_account',
      columnNames: ['account_id', 'id'],
    });
    await createIndex(qr, 'sandbox_deliveries', {
      name: 'ix_sandbox_deliveries_bulk',
      columnNames: ['bulk_job_id', 'id'],
    });

    await createTable(qr, {
      name: 'sandbox_faults',
      columns: [
        col.id(),
        col.str('channel', 20, true),
        col.str('account_id', 40, true),
        col.str('kind', 20),
        col.int('remaining'),
        col.ms('created_at'),
      ],
    });
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable('sandbox_faults');
    await qr.dropTable('sandbox_deliveries');
    await qr.dropTable('messages');
  }
}
