import { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createTable } from '../migration-helpers';

// Owned by the consent module (inbound keywords): an account's own keywords, its HELP text and its
// optional confirmation replies, as one JSON document; no row means the defaults.
export class KeywordSettings1732000111000 implements MigrationInterface {
  name = 'KeywordSettings1732000111000';

  async up(qr: QueryRunner): Promise<void> {
    await createTable(qr, {
      name: 'keyword_settings',
      columns: [{ ...col.ref('account_id'), isPrimary: true }, col.text('settings', false), col.ms('updated_at')],
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
    await qr.dropTable('keyword_settings');
  }
}
