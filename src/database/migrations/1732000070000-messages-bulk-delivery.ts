import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndex } from '../migration-helpers';

// Owned by messaging: a bulk job's delivery counts (GET /messages/bulk/{jobId}, its event stream)
// count the job's messages by status and error code. This index answers that from its own entries,
// reading only the job's delivered, read and failed messages (never every row of a large job).
export class MessagesBulkDelivery1732000070000 implements MigrationInterface {
  name = 'MessagesBulkDelivery1732000070000';

  async up(qr: QueryRunner): Promise<void> {
    await createIndex(qr, 'messages', {
      name: 'ix_messages_bulk_status',
      columnNames: ['bulk_job_id', 'status', 'error_code', 'account_id'],
    });
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropIndex('messages', 'ix_messages_bulk_status');
  }
}
