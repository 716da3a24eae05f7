import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { col, createIndex, createTable } from '../migration-helpers';

// Owned by the senders module (inbound SMS). `inbound_sms` learns how many parts it had and how many
// arrived (fewer when an incomplete set was stored after the hold) and the key that recognises an
// SMSC's redelivery; `inbound_sms_parts` keeps every part of a concatenated SMS, open (no
// `inbound_sms_id`) until its set is joined.
export class InboundSmsParts1732000110000 implements MigrationInterface {
  name = 'InboundSmsParts1732000110000';

  async up(qr: QueryRunner): Promise<void> {
    await qr.addColumns('inbound_sms', [
      new TableColumn(col.int('parts_total', 1)),
      new TableColumn(col.int('parts_received', 1)),
      new TableColumn(col.str('dedupe_key', 64, true)),
    ]);
    await createIndex(qr, 'inbound_sms', {
      name: 'ix_inbound_sms_pair_received',
      columnNames: ['from_address', 'to_address', 'received_at'],
    });
    await createTable(qr, {
      name: 'inbound_sms_parts',
      columns: [
        col.id(),
        col.str('group_key', 64),
        col.str('part_key', 64),
        col.int('seq', null),
        col.int('total', null),
        // 64: an erasure replaces the number with its 64-character hash (as in inbound_sms).
        col.str('from_address', 64),
        col.str('to_address', 32),
        col.text('text', false),
        col.ms('received_at'),
        col.ref('inbound_sms_id', true),
      ],
      foreignKeys: [
        {
          columnNames: ['inbound_sms_id'],
          referencedTableName: 'inbound_sms',
          referencedColumnNames: ['id'],
          onDelete: 'CASCADE',
        },
      ],
    });
    await createIndex(qr, 'inbound_sms_parts', { name: 'ix_inbound_sms_parts_group', columnNames: ['group_key'] });
    await createIndex(qr, 'inbound_sms_parts', { name: 'ix_inbound_sms_parts_key', columnNames: ['part_key'] });
    await createIndex(qr, 'inbound_sms_parts', {
      name: 'ix_inbound_sms_parts_message',
      columnNames: ['inbound_sms_id', 'seq'],
    });
    await createIndex(qr, 'inbound_sms_parts', {
      name: 'ix_inbound_sms_parts_open',
      columnNames: ['inbound_sms_id', 'received_at'],
    });
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable('inbound_sms_parts');
    await qr.dropIndex('inbound_sms', 'ix_inbound_sms_pair_received');
    await qr.dropColumns('inbound_sms', ['parts_total', 'parts_received', 'dedupe_key']);
  }
}
