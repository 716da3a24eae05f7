import { MigrationInterface, QueryRunner } from 'typeorm';

// Owned by the webhooks module. Fill in with createTable()/createIndex() from ../migration-helpers.
export class Webhooks1732000004000 implements MigrationInterface {
  name = 'Webhooks1732000004000';

  async up(_qr: QueryRunner): Promise<void> {}

  async down(_qr: QueryRunner): Promise<void> {}
}
