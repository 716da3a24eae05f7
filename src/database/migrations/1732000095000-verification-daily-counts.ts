import { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createTable } from '../migration-helpers';

// Owned by the fraud module: codes sent and verified per account and UTC day, kept after the
// verification rows themselves are purged (the console's chart, conversion per day). A code verified
// is counted on the day it was sent. `day` is 'YYYY-MM-DD', so it sorts and compares as text.
export class VerificationDailyCounts1732000095000 implements MigrationInterface {
  name = 'VerificationDailyCounts1732000095000';

  async up(qr: QueryRunner): Promise<void> {
    await createTable(qr, {
      name: 'verification_daily_counts',
      columns: [
        { ...col.ref('account_id'), isPrimary: true },
        { ...col.str('day', 10), isPrimary: true },
        col.int('sent'),
        col.int('verified'),
      ],
      foreignKeys: [
        {
          columnNames: ['account_id'],
          referencedTableName: 'accounts',
          referencedColumnNames: ['id'],
          onDelete: 'CASCADE',
        },
      ],
    });
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable('verification_daily_counts');
  }
}
