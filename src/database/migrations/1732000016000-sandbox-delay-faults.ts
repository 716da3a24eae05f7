import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { col } from '../migration-helpers';

// Owned by the sandbox provider: how long a `delay` fault holds a call before answering normally
// (a slow provider, so tests can see work in flight, e.g. during a shutdown).
export class SandboxDelayFaults1732000016000 implements MigrationInterface {
  name = 'SandboxDelayFaults1732000016000';

  async up(qr: QueryRunner): Promise<void> {
    await qr.addColumn('sandbox_faults', new TableColumn(col.int('delay_ms', null)));
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropColumn('sandbox_faults', 'delay_ms');
  }
}
