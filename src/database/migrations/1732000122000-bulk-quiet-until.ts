import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { col } from '../migration-helpers';

// Owned by bulk: a job whose marketing rows wait for the sending hours (issue 28 item 6) is not leased
// before `quiet_until` (epoch ms); cleared when it is leased again.
export class BulkQuietUntil1732000122000 implements MigrationInterface {
  name = 'BulkQuietUntil1732000122000';

  async up(qr: QueryRunner): Promise<void> {
    await qr.addColumn('bulk_jobs', new TableColumn(col.ms('quiet_until', true)));
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropColumn('bulk_jobs', 'quiet_until');
  }
}
