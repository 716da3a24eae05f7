import { MigrationInterface, QueryRunner } from 'typeorm';

// Owned by the messaging module. Fill in with createTable()/createIndex() from ../migration-helpers.
export class Messaging1732000001000 implements MigrationInterface {
  name = 'Messaging1732000001000';

  async up(_qr: QueryRunner): Promise<void> {}

  async down(_qr: QueryRunner): Promise<void> {}
}
