import { MigrationInterface, QueryRunner } from 'typeorm';

// Owned by the templates module. Fill in with createTable()/createIndex() from ../migration-helpers.
export class Templates1732000002000 implements MigrationInterface {
  name = 'Templates1732000002000';

  async up(_qr: QueryRunner): Promise<void> {}

  async down(_qr: QueryRunner): Promise<void> {}
}
