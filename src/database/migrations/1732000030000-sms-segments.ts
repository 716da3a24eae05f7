import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { col } from '../migration-helpers';

// Owned by messaging: how a local_sms message was encoded (gsm7 / ucs2) and how many parts (each a
// billable unit) it took. Null on other channels and on messages logged before this.
export class SmsSegments1732000030000 implements MigrationInterface {
  name = 'SmsSegments1732000030000';

  async up(qr: QueryRunner): Promise<void> {
    await qr.addColumn('messages', new TableColumn(col.str('encoding', 8, true)));
    await qr.addColumn('messages', new TableColumn(col.int('segments', null)));
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropColumn('messages', 'segments');
    await qr.dropColumn('messages', 'encoding');
  }
}
