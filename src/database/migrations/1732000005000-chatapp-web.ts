import { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createIndex, createTable } from '../migration-helpers';

const accountFk = {
  columnNames: ['account_id'],
  referencedTableName: 'accounts',
  referencedColumnNames: ['id'],
  onDelete: 'CASCADE',
};
const sessionFk = {
  columnNames: ['session_id'],
  referencedTableName: 'web_sessions',
  referencedColumnNames: ['id'],
  onDelete: 'CASCADE',
};

// Web sessions (and messaging bots) of the chatapp-web module, their sandbox chats, and the inbound
// message log whose unique (session, remote message id) index makes inbound delivery exactly-once.
export class ChatappWeb1732000005000 implements MigrationInterface {
  name = 'ChatappWeb1732000005000';

  async up(qr: QueryRunner): Promise<void> {
    await createTable(qr, {
      name: 'web_sessions',
      columns: [
        col.id(),
        col.ref('account_id'),
        col.str('name', 100),
        col.str('kind', 10),
        col.str('provider', 20),
        col.str('provider_session', 100),
        col.str('status', 20),
        col.text('hook_secret'),
        col.ms('created_at'),
        col.ms('updated_at'),
      ],
      foreignKeys: [accountFk],
    });
    await createIndex(qr, 'web_sessions', {
      name: 'uq_web_sessions_account_name',
      columnNames: ['account_id', 'name'],
      isUnique: true,
    });

    await createTable(qr, {
      name: 'web_session_chats',
      columns: [
        col.id(),
        col.ref('session_id'),
        col.int('position', null),
        col.str('chat_id', 200),
        col.str('kind', 10),
        col.str('title', 300),
        col.str('phone_number', 32, true),
      ],
      foreignKeys: [sessionFk],
    });
    await createIndex(qr, 'web_session_chats', {
      name: 'uq_web_session_chats_position',
      columnNames: ['session_id', 'position'],
      isUnique: true,
    });
    await createIndex(qr, 'web_session_chats', {
      name: 'uq_web_session_chats_chat',
      columnNames: ['session_id', 'chat_id'],
      isUnique: true,
    });
    await createIndex(qr, 'web_session_chats', {
      name: 'ix_web_session_chats_kind',
      columnNames: ['session_id', 'kind', 'position'],
    });

    await createTable(qr, {
      name: 'web_inbound_messages',
      columns: [
        col.id(),
        col.ref('account_id'),
        col.ref('session_id'),
        col.str('remote_message_id', 200),
        col.str('remote_chat_id', 200),
        col.str('status', 20),
        col.ref('delivery_id', true),
        col.ms('created_at'),
      ],
      foreignKeys: [accountFk, sessionFk],
    });
    await createIndex(qr, 'web_inbound_messages', {
      name: 'uq_web_inbound_remote_id',
      columnNames: ['session_id', 'remote_message_id'],
      isUnique: true,
    });
    await createIndex(qr, 'web_inbound_messages', {
      name: 'ix_web_inbound_account',
      columnNames: ['account_id', 'id'],
    });
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable('web_inbound_messages');
    await qr.dropTable('web_session_chats');
    await qr.dropTable('web_sessions');
  }
}
