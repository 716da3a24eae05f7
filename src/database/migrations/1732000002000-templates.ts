import { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createIndex, createTable } from '../migration-helpers';

// Owned by the templates module: templates, header media assets, official chat-app senders.
export class Templates1732000002000 implements MigrationInterface {
  name = 'Templates1732000002000';

  async up(qr: QueryRunner): Promise<void> {
    await createTable(qr, {
      name: 'official_senders',
      columns: [
        col.id(),
        col.ref('account_id'),
        col.str('display_name', 200),
        col.str('phone_number', 20, true),
        col.str('phone_number_id', 100, true),
        col.str('waba_id', 100, true),
        col.bool('is_default', false),
        col.ms('created_at'),
      ],
      foreignKeys: [
        {
          columnNames: ['account_id'],
          referencedTableName: 'accounts',
          referencedColumnNames: ['id'],
          onDelete: 'CASCADE',
        },
      ],
    });
    await createIndex(qr, 'official_senders', {
      name: 'ix_official_senders_account',
      columnNames: ['account_id', 'id'],
    });

    await createTable(qr, {
      name: 'template_media',
      columns: [
        col.id(),
        col.ref('account_id', true),
        col.str('header_type', 20),
        col.str('mime_type', 100),
        col.bigint('size'),
        col.str('storage_key', 200),
        col.ms('created_at'),
      ],
      foreignKeys: [
        {
          columnNames: ['account_id'],
          referencedTableName: 'accounts',
          referencedColumnNames: ['id'],
          onDelete: 'CASCADE',
        },
      ],
    });
    await createIndex(qr, 'template_media', { name: 'ix_template_media_account', columnNames: ['account_id'] });

    await createTable(qr, {
      name: 'templates',
      columns: [
        col.id(),
        // `scope` is the owning account id, or '*' for operator default templates visible to all.
        col.str('scope', 40),
        col.ref('account_id', true),
        col.str('name', 200),
        col.str('category', 20),
        col.str('sub_type', 20),
        col.str('status', 20),
        // '' when no language (unique index needs a non-null value on both dialects).
        col.str('language', 20, false, ''),
        col.text('body'),
        col.text('content'),
        col.str('email_subject', 500, true),
        col.text('body_parameters'),
        col.str('header_type', 20, true),
        col.text('header_value'),
        col.ref('header_asset_id', true),
        col.bool('allows_header_media_override', false),
        col.str('footer', 200, true),
        col.text('buttons'),
        col.text('url_button_variables'),
        col.int('variable_count'),
        col.str('provider', 20),
        col.str('provider_template_id', 200, true),
        col.str('manual_provider', 40, true),
        col.str('creation_mode', 40, true),
        col.ref('official_sender_id', true),
        col.text('otp'),
        col.str('rejection_reason', 500, true),
        // Status poll of pending official templates: a replica claims a row until the lease expires.
        col.str('poll_lease_owner', 40, true),
        col.ms('poll_lease_expires_at', true),
        col.ms('created_at'),
        col.ms('updated_at'),
      ],
      foreignKeys: [
        {
          columnNames: ['account_id'],
          referencedTableName: 'accounts',
          referencedColumnNames: ['id'],
          onDelete: 'CASCADE',
        },
      ],
    });
    await createIndex(qr, 'templates', {
      name: 'uq_templates_scope_name',
      columnNames: ['scope', 'category', 'language', 'name'],
      isUnique: true,
    });
    await createIndex(qr, 'templates', { name: 'ix_templates_scope_id', columnNames: ['scope', 'id'] });
    await createIndex(qr, 'templates', { name: 'ix_templates_provider_tpl', columnNames: ['provider_template_id'] });
    await createIndex(qr, 'templates', {
      name: 'ix_templates_status_poll',
      columnNames: ['status', 'provider', 'poll_lease_expires_at'],
    });
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable('templates');
    await qr.dropTable('template_media');
    await qr.dropTable('official_senders');
  }
}
