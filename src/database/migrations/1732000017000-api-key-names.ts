import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { col } from '../migration-helpers';

// Owned by accounts: owners name the member keys they create (GET /api/v2/api-keys lists them) and
// see when each key last authenticated. Keys issued before this get a name from their role.
export class ApiKeyNames1732000017000 implements MigrationInterface {
  name = 'ApiKeyNames1732000017000';

  async up(qr: QueryRunner): Promise<void> {
    await qr.addColumn('api_keys', new TableColumn(col.str('name', 100, false, '')));
    await qr.addColumn('api_keys', new TableColumn(col.ms('last_used_at', true)));
    await qr.query(`UPDATE api_keys SET name = CASE WHEN role = 'owner' THEN 'Owner key' ELSE 'Member key' END`);
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropColumn('api_keys', 'last_used_at');
    await qr.dropColumn('api_keys', 'name');
  }
}
