import type { DataSource } from 'typeorm';
import { AppConfig, loadConfig } from '../../config/app-config';
import { openInMemoryDatabase } from '../../database/testing/in-memory-database';
import type { UnitOfWork } from '../../database/unit-of-work';

export interface AccountFields {
  wallet?: number;
  free?: number;
  quota?: number;
  used?: number;
  active?: boolean;
}

/** The in-memory database (openInMemoryDatabase) for the ledger's unit specs, with accounts made and read back by raw SQL. */
export interface LedgerDatabase {
  config: AppConfig;
  ds: DataSource;
  uow: UnitOfWork;
  account(f?: AccountFields): Promise<string>;
  balances(id: string): Promise<{ wallet: number; free: number; used: number }>;
  close(): Promise<void>;
}

export async function ledgerDatabase(prefix: string): Promise<LedgerDatabase> {
  const config = loadConfig({ NODE_ENV: 'test' });
  const { ds, uow } = await openInMemoryDatabase();
  let n = 0;
  return {
    config,
    ds,
    uow,
    async account(f = {}) {
      const id = `${prefix}_${++n}`;
      await ds.query(
        'INSERT INTO accounts (id, name, phone_verified, subscription_active, wallet_balance, currency, plan_name, message_quota, messages_used, free_messages, created_at, updated_at) VALUES (?, ?, 1, ?, ?, ?, NULL, ?, ?, ?, 0, 0)',
        [id, 'x', f.active === false ? 0 : 1, f.wallet ?? 0, 'SAR', f.quota ?? 0, f.used ?? 0, f.free ?? 0],
      );
      return id;
    },
    async balances(id) {
      const [r] = await ds.query(
        'SELECT wallet_balance AS w, free_messages AS f, messages_used AS u FROM accounts WHERE id = ?',
        [id],
      );
      return { wallet: Number(r.w), free: Number(r.f), used: Number(r.u) };
    },
    close: () => ds.destroy(),
  };
}
