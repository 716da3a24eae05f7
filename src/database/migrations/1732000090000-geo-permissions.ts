import { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createTable } from '../migration-helpers';

// Owned by the fraud module: an account's geo permissions. Lists are comma-separated ISO 3166-1 codes,
// `*` for every country, '' for none. No row: DEFAULT_ALLOWED_COUNTRIES for every channel and as ceiling.
export class GeoPermissions1732000090000 implements MigrationInterface {
  name = 'GeoPermissions1732000090000';

  async up(qr: QueryRunner): Promise<void> {
    await createTable(qr, {
      name: 'geo_permissions',
      columns: [
        col.id('account_id'),
        col.text('local_sms', false),
        col.text('chatapp', false),
        col.text('chatapp_web', false),
        col.text('owner_selectable', false),
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
    await qr.dropTable('geo_permissions');
  }
}
