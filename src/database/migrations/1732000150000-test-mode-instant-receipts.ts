import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { col } from '../migration-helpers';

// Test mode (issue 30 item 5): a test bulk job may ask for immediate sandbox receipts
// (`testOptions.instantReceipts`). Owned by bulk (the job's choice) and the sandbox provider (each
// delivery's receipts follow it).
export class TestModeInstantReceipts1732000150000 implements MigrationInterface {
  name = 'TestModeInstantReceipts1732000150000';

  async up(qr: QueryRunner): Promise<void> {
    await qr.addColumn('bulk_jobs', new TableColumn(col.bool('instant_receipts', false)));
    await qr.addColumn('sandbox_deliveries', new TableColumn(col.bool('instant_receipts', false)));
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropColumn('sandbox_deliveries', 'instant_receipts');
    await qr.dropColumn('bulk_jobs', 'instant_receipts');
  }
}
