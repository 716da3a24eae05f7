import { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createIndex, createTable } from '../migration-helpers';

// Owned by the consent module: an account's suppression list. An entry is found by the recipient's
// one-way hash (RecipientHasher), unique per (account, hash, channel); `channel` is a channel name
// or `all`. The plain `recipient` is for display only and nullable: an erasure nulls it and the
// entry stays enforced.
export class Suppressions1732000100000 implements MigrationInterface {
  name = 'Suppressions1732000100000';

  async up(qr: QueryRunner): Promise<void> {
    await createTable(qr, {
      name: 'suppressions',
      columns: [
        col.id(),
        col.ref('account_id'),
        col.str('recipient_hash', 64),
        col.str('recipient', 320, true),
        col.str('channel', 20),
        col.str('scope', 20),
        col.str('reason', 20),
        col.str('source', 120, true),
        col.ms('created_at'),
      ],
    });
    await createIndex(qr, 'suppressions', {
      name: 'ux_suppressions_recipient',
      columnNames: ['account_id', 'recipient_hash', 'channel'],
      isUnique: true,
    });
    await createIndex(qr, 'suppressions', { name: 'ix_suppressions_list', columnNames: ['account_id', 'created_at'] });
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable('suppressions');
  }
}
