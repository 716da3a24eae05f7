import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndex } from '../migration-helpers';

/**
 * Two fewer indexes on `messages`, each written on every insert and purge delete (issues 29 and 33):
 * the log lists newest first by (created_at, id) on ix_messages_account_created, so (account_id, id)
 * goes; an account's own retention reads ix_messages_account_updated, so (account_id, usage_counted_at)
 * goes; a job's messages list in the same order on (bulk_job_id, created_at, id).
 */
export class MessagesIndexTrim1732000160000 implements MigrationInterface {
  name = 'MessagesIndexTrim1732000160000';

  async up(qr: QueryRunner): Promise<void> {
    await qr.dropIndex('messages', 'ix_messages_account');
    await qr.dropIndex('messages', 'ix_messages_account_counted');
    await qr.dropIndex('messages', 'ix_messages_bulk');
    await createIndex(qr, 'messages', { name: 'ix_messages_bulk', columnNames: ['bulk_job_id', 'created_at', 'id'] });
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropIndex('messages', 'ix_messages_bulk');
    await createIndex(qr, 'messages', { name: 'ix_messages_bulk', columnNames: ['bulk_job_id', 'id'] });
    await createIndex(qr, 'messages', {
      name: 'ix_messages_account_counted',
      columnNames: ['account_id', 'usage_counted_at'],
    });
    await createIndex(qr, 'messages', { name: 'ix_messages_account', columnNames: ['account_id', 'id'] });
  }
}
