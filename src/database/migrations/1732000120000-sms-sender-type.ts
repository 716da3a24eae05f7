import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { col } from '../migration-helpers';

// Owned by senders: a sender name is `transactional` (every name so far) or `promotional` (`-AD`
// suffix, registered for marketing; issue 28 item 5).
export class SmsSenderType1732000120000 implements MigrationInterface {
  name = 'SmsSenderType1732000120000';

  async up(qr: QueryRunner): Promise<void> {
    await qr.addColumn('sms_senders', new TableColumn(col.str('type', 16, false, 'transactional')));
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropColumn('sms_senders', 'type');
  }
}
