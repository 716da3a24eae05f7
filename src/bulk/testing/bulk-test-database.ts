import type { DataSource } from 'typeorm';
import { insertAccountRow } from '../../accounts/testing/account-rows';
import { openInMemoryDatabase } from '../../database/testing/in-memory-database';
import type { UnitOfWork } from '../../database/unit-of-work';
import { BulkJobRepository } from '../bulk-job.repository';
import { rowStatements } from '../bulk-row.repository';
import { accountIdOf } from '../../common/account-id';

/** For bulk unit specs: the in-memory database with every migration and one account, `acc_1`. */
export async function openBulkTestDatabase(): Promise<{ ds: DataSource; uow: UnitOfWork }> {
  const db = await openInMemoryDatabase();
  await insertAccountRow(db.ds, 'acc_1', { name: 'A' });
  return db;
}

/** A `running` job `id` of `acc_1` leased to `owner`, with `n` pending SMS rows (row i's payload `{"i":i}`). */
export async function insertRunningJob(
  db: { ds: DataSource; uow: UnitOfWork },
  id: string,
  n: number,
  owner = 'rep_1',
): Promise<string> {
  await new BulkJobRepository(db.uow).create(id, accountIdOf('acc_1'), owner, 10_000, 1);
  const rows = Array.from({ length: n }, (_, i) => ({
    idx: i,
    to: `+9665000000${i}`,
    channel: 'local_sms',
    payload: `{"i":${i}}`,
  }));
  await db.uow.run(rowStatements.insertBatch(id, rows));
  await db.ds.query(`UPDATE bulk_jobs SET status = 'running', total = ?, pending_count = ? WHERE id = ?`, [n, n, id]);
  return id;
}
