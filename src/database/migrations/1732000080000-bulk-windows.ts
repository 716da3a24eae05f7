import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { col } from '../migration-helpers';

// Owned by bulk: the window a job's runner has in flight, kept on the job instead of marking each of
// its rows `sending`. Rows of the job still `pending` with an index in [window_from, window_to] were
// taken for that window (cancel leaves them to the runner or the reaper); their message ids are
// derived from (job, row, attempt) and window_at, so whoever takes the job over after a crash names
// the same messages. Null when no window is in flight.
export class BulkWindows1732000080000 implements MigrationInterface {
  name = 'BulkWindows1732000080000';

  async up(qr: QueryRunner): Promise<void> {
    await qr.addColumn('bulk_jobs', new TableColumn(col.int('window_from', null)));
    await qr.addColumn('bulk_jobs', new TableColumn(col.int('window_to', null)));
    await qr.addColumn('bulk_jobs', new TableColumn(col.ms('window_at', true)));
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropColumn('bulk_jobs', 'window_at');
    await qr.dropColumn('bulk_jobs', 'window_to');
    await qr.dropColumn('bulk_jobs', 'window_from');
  }
}
