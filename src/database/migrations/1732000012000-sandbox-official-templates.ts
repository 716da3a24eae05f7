import { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createIndex, createTable } from '../migration-helpers';

// Owned by templates: what the sandbox official provider knows (so a manual link can be looked up),
// and the index the media orphan purge's "does a template use this asset" check reads.
export class SandboxOfficialTemplates1732000012000 implements MigrationInterface {
  name = 'SandboxOfficialTemplates1732000012000';

  async up(qr: QueryRunner): Promise<void> {
    await createTable(qr, {
      name: 'sandbox_official_templates',
      columns: [
        col.id(),
        col.str('waba_id', 100, true),
        col.str('name', 200),
        col.str('language', 20),
        col.str('status', 20),
        col.int('variable_count'),
        col.ms('created_at'),
      ],
    });
    await createIndex(qr, 'sandbox_official_templates', {
      name: 'ix_sandbox_official_templates_waba',
      columnNames: ['waba_id', 'name'],
    });
    await createIndex(qr, 'templates', { name: 'ix_templates_header_asset', columnNames: ['header_asset_id'] });
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropIndex('templates', 'ix_templates_header_asset');
    await qr.dropTable('sandbox_official_templates');
  }
}
