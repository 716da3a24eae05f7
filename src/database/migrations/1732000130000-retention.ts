import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { col, createIndex, createTable } from '../migration-helpers';

// Owned by the privacy module (issue 29: retention and usage). An account's own retention (null: the
// operator's default); when each message was rolled into the daily usage records (null: not yet, and
// a message not counted is never purged); the usage records themselves (kept, never purged); and the
// lease of the one purger, so one replica purges at a time. The two message indexes: the roll-up reads
// settled messages not counted yet, the purger an account's messages counted before a cutoff.
export class Retention1732000130000 implements MigrationInterface {
  name = 'Retention1732000130000';

  async up(qr: QueryRunner): Promise<void> {
    await qr.addColumn('accounts', new TableColumn(col.int('retention_days', null)));
    await qr.addColumn('messages', new TableColumn(col.ms('usage_counted_at', true)));
    await createIndex(qr, 'messages', {
      name: 'ix_messages_usage_pending',
      columnNames: ['usage_counted_at', 'status'],
    });
    await createIndex(qr, 'messages', {
      name: 'ix_messages_account_counted',
      columnNames: ['account_id', 'usage_counted_at'],
    });
    await createTable(qr, {
      name: 'usage_daily',
      columns: [
        { ...col.ref('account_id'), isPrimary: true },
        // 'YYYY-MM-DD' (UTC day the message was accepted): sorts and compares as text.
        { ...col.str('day', 10), isPrimary: true },
        { ...col.str('channel', 20), isPrimary: true },
        { ...col.str('purpose', 20, false, 'transactional'), isPrimary: true },
        { ...col.str('source', 10), isPrimary: true },
        col.bigint('messages'),
        col.bigint('parts'),
        col.bigint('cost'),
      ],
    });
    await createTable(qr, {
      name: 'privacy_leases',
      columns: [{ ...col.str('name', 40), isPrimary: true }, col.str('owner', 80, true), col.ms('expires_at', true)],
    });
    await qr.query(`INSERT INTO privacy_leases (name, owner, expires_at) VALUES ('retention-purge', NULL, NULL)`);
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable('privacy_leases');
    await qr.dropTable('usage_daily');
    await qr.dropIndex('messages', 'ix_messages_account_counted');
    await qr.dropIndex('messages', 'ix_messages_usage_pending');
    await qr.dropColumn('messages', 'usage_counted_at');
    await qr.dropColumn('accounts', 'retention_days');
  }
}
