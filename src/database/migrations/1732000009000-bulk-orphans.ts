import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndex } from '../migration-helpers';

// Owned by bulk: the reaper looks for cancelled jobs with unsettled rows (pending_count > 0) through
// this index instead of walking every cancelled job.
export class BulkOrphans1732000009000 implements MigrationInterface {
  name = 'BulkOrphans1732000009000';

  async up(qr: QueryRunner): Promise<void> {
    await createIndex(qr, 'bulk_jobs', { name: 'ix_bulk_jobs_unsettled', columnNames: ['status', 'pending_count'] });
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropIndex('bulk_jobs', 'ix_bulk_jobs_unsettled');
  }
}
