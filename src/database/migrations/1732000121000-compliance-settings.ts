import { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createTable } from '../migration-helpers';

// Owned by consent: an account's marketing compliance settings (issue 28 items 5 and 6). No row: the
// defaults (window 09:00-22:00 every day, default footers, no link domains, first zone of a country).
export class ComplianceSettings1732000121000 implements MigrationInterface {
  name = 'ComplianceSettings1732000121000';

  async up(qr: QueryRunner): Promise<void> {
    await createTable(qr, {
      name: 'compliance_settings',
      columns: [
        col.id('account_id'),
        col.str('window_start', 5),
        col.str('window_end', 5),
        col.str('window_days', 40),
        col.text('default_time_zones', false),
        col.text('footer_ar', false),
        col.text('footer_en', false),
        col.text('allowed_link_domains', false),
        col.ms('updated_at'),
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
    await qr.dropTable('compliance_settings');
  }
}
