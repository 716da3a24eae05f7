import { MigrationInterface, QueryRunner } from 'typeorm';

// Owned by the senders module. Fill in with createTable()/createIndex() from ../migration-helpers.
export class Senders1732000003000 implements MigrationInterface {
  name = 'Senders1732000003000';

  async up(_qr: QueryRunner): Promise<void> {}

  async down(_qr: QueryRunner): Promise<void> {}
}
