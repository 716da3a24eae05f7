import type { DataSource } from 'typeorm';
import { insertAccountRow } from '../../accounts/testing/account-rows';
import { openInMemoryDatabase } from '../../database/testing/in-memory-database';
import type { UnitOfWork } from '../../database/unit-of-work';

/** For bulk unit specs: the in-memory database with every migration and one account, `acc_1`. */
export async function openBulkTestDatabase(): Promise<{ ds: DataSource; uow: UnitOfWork }> {
  const db = await openInMemoryDatabase();
  await insertAccountRow(db.ds, 'acc_1', { name: 'A' });
  return db;
}
