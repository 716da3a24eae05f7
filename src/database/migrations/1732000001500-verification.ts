import { MigrationInterface, QueryRunner } from 'typeorm';

// Owned by the verification module. Fill in with createTable()/createIndex() from ../migration-helpers.
export class Verification1732000001500 implements MigrationInterface {
  name = 'Verification1732000001500';

  async up(_qr: QueryRunner): Promise<void> {}

  async down(_qr: QueryRunner): Promise<void> {}
}
