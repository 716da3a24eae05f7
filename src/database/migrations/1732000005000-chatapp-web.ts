import { MigrationInterface, QueryRunner } from 'typeorm';

// Owned by the chatapp-web module. Fill in with createTable()/createIndex() from ../migration-helpers.
export class ChatappWeb1732000005000 implements MigrationInterface {
  name = 'ChatappWeb1732000005000';

  async up(_qr: QueryRunner): Promise<void> {}

  async down(_qr: QueryRunner): Promise<void> {}
}
