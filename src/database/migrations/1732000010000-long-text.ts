import { MigrationInterface, QueryRunner } from 'typeorm';
import { MYSQL_COLLATION } from '../collation';
import { isMysql } from '../migration-helpers';

// MySQL/MariaDB `text` holds 64 KB; these columns take what the API accepts (an email html of up to
// 500,000 characters in a scheduled message or a sandbox delivery, a template body of 100,000, an
// inbound text in a webhook body), so they become MEDIUMTEXT (16 MB) as bulk_rows.payload already is.
// SQLite's TEXT has no such limit: nothing to do there.
const COLUMNS: [table: string, column: string, nullable: boolean][] = [
  ['messages', 'payload', true],
  ['sandbox_deliveries', 'text', true],
  ['templates', 'body', true],
  ['templates', 'content', true],
  ['templates', 'body_parameters', true],
  ['templates', 'buttons', true],
  ['webhook_deliveries', 'body', false],
];

export class LongText1732000010000 implements MigrationInterface {
  name = 'LongText1732000010000';

  async up(qr: QueryRunner): Promise<void> {
    await this.modify(qr, 'MEDIUMTEXT');
  }

  async down(qr: QueryRunner): Promise<void> {
    await this.modify(qr, 'TEXT');
  }

  private async modify(qr: QueryRunner, type: string): Promise<void> {
    if (!isMysql(qr)) return;
    for (const [table, column, nullable] of COLUMNS) {
      await qr.query(
        `ALTER TABLE \`${table}\` MODIFY \`${column}\` ${type} CHARACTER SET utf8mb4 COLLATE ${MYSQL_COLLATION} ${nullable ? 'NULL' : 'NOT NULL'}`,
      );
    }
  }
}
