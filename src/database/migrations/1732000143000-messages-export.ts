import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndex } from '../migration-helpers';

/**
 * GET /messages/export.csv (issue 29) reads an account's messages created in a period in pages by
 * (created_at, id): an index range per page, never a scan of the account's log.
 */
export class MessagesExport1732000143000 implements MigrationInterface {
  name = 'MessagesExport1732000143000';

  async up(qr: QueryRunner): Promise<void> {
    await createIndex(qr, 'messages', {
      name: 'ix_messages_account_created',
      columnNames: ['account_id', 'created_at', 'id'],
    });
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropIndex('messages', 'ix_messages_account_created');
  }
}
