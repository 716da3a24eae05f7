import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { col } from '../migration-helpers';

// Owned by messaging: when a message was last handed to a provider that cannot be asked about it
// afterwards (no lookup). A message found `queued` after a crash with this set may have been
// delivered, so it is settled as unconfirmed instead of being sent again.
export class MessageHandoff1732000007000 implements MigrationInterface {
  name = 'MessageHandoff1732000007000';

  async up(qr: QueryRunner): Promise<void> {
    await qr.addColumn('messages', new TableColumn(col.ms('handed_off_at', true)));
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropColumn('messages', 'handed_off_at');
  }
}
