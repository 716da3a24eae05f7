import { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createTable } from '../migration-helpers';

// Owned by the consent module: the platform's do-not-disturb list (the national DND register the
// operator imports). An import writes a new generation; one UPDATE of dnd_state switches the active
// generation, so a replacement is atomic; the old generation is deleted afterwards in batches.
export class DndList1732000101000 implements MigrationInterface {
  name = 'DndList1732000101000';

  async up(qr: QueryRunner): Promise<void> {
    await createTable(qr, {
      name: 'dnd_numbers',
      columns: [
        { ...col.int('generation'), isPrimary: true },
        { ...col.str('number', 20), isPrimary: true },
      ],
    });
    await createTable(qr, {
      name: 'dnd_state',
      columns: [
        { ...col.int('id'), isPrimary: true },
        col.int('active_generation'),
        col.int('next_generation'),
        col.int('numbers'),
        col.ms('imported_at', true),
      ],
    });
    await qr.query('INSERT INTO dnd_state (id, active_generation, next_generation, numbers) VALUES (1, 0, 1, 0)');
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable('dnd_state');
    await qr.dropTable('dnd_numbers');
  }
}
