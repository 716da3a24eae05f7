import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { col } from '../migration-helpers';

// What a message is for (`transactional` or `marketing`), on the message log and on bulk rows, so the
// message resource and the job's rows show it. Existing rows were all sent as transactional.
export class MessagePurpose1732000102000 implements MigrationInterface {
  name = 'MessagePurpose1732000102000';

  async up(qr: QueryRunner): Promise<void> {
    await qr.addColumn('messages', new TableColumn(col.str('purpose', 16, false, 'transactional')));
    await qr.addColumn('bulk_rows', new TableColumn(col.str('purpose', 16, false, 'transactional')));
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropColumn('bulk_rows', 'purpose');
    await qr.dropColumn('messages', 'purpose');
  }
}
