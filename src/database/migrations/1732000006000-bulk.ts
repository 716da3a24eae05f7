import { MigrationInterface, QueryRunner } from 'typeorm';

// Owned by the bulk module. Fill in with createTable()/createIndex() from ../migration-helpers.
export class Bulk1732000006000 implements MigrationInterface {
  name = 'Bulk1732000006000';

  async up(_qr: QueryRunner): Promise<void> {}

  async down(_qr: QueryRunner): Promise<void> {}
}
