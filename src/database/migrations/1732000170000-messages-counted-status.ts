import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndex } from '../migration-helpers';

/**
 * One index fewer on `messages` (issues 29 and 33): (usage_counted_at, status, scheduled_at) serves what
 * ix_messages_due (status, scheduled_at) and ix_messages_usage_pending (usage_counted_at, status) served.
 * A scheduled or queued message has never been counted (the roll-up counts settled messages; a requeue
 * clears the mark), so the due and stale-queued reads range over `usage_counted_at IS NULL` and a status;
 * the roll-up reads uncounted settled ones and the purge a range of count times, as before. Every insert,
 * status move and purge delete writes one entry fewer.
 */
export class MessagesCountedStatus1732000170000 implements MigrationInterface {
  name = 'MessagesCountedStatus1732000170000';

  async up(qr: QueryRunner): Promise<void> {
    await createIndex(qr, 'messages', {
      name: 'ix_messages_counted_status',
      columnNames: ['usage_counted_at', 'status', 'scheduled_at'],
    });
    await qr.dropIndex('messages', 'ix_messages_due');
    await qr.dropIndex('messages', 'ix_messages_usage_pending');
  }

  async down(qr: QueryRunner): Promise<void> {
    await createIndex(qr, 'messages', {
      name: 'ix_messages_usage_pending',
      columnNames: ['usage_counted_at', 'status'],
    });
    await createIndex(qr, 'messages', { name: 'ix_messages_due', columnNames: ['status', 'scheduled_at'] });
    await qr.dropIndex('messages', 'ix_messages_counted_status');
  }
}
