import type { DataSource } from 'typeorm';
import { openInMemoryDatabase } from '../../database/testing/in-memory-database';
import type { UnitOfWork } from '../../database/unit-of-work';

/** For bulk unit specs: the in-memory database with every migration and one account, `acc_1`. */
export async function openBulkTestDatabase(): Promise<{ ds: DataSource; uow: UnitOfWork }> {
  const db = await openInMemoryDatabase();
  await db.ds.query(
    'INSERT INTO accounts (id, name, phone_verified, subscription_active, wallet_balance, currency, plan_name, message_quota, messages_used, free_messages, created_at, updated_at) VALUES (?, ?, 1, 1, 0, ?, NULL, 0, 0, 0, 0, 0)',
    ['acc_1', 'A', 'SAR'],
  );
  return db;
}
