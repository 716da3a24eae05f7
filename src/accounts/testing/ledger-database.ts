import type { DataSource } from 'typeorm';
import { AppConfig, loadConfig } from '../../config/app-config';
import { openInMemoryDatabase } from '../../database/testing/in-memory-database';
import type { UnitOfWork } from '../../database/unit-of-work';
import { accountBalances, AccountFields, insertAccountRow } from './account-rows';

/** The in-memory database (openInMemoryDatabase) for the ledger's unit specs, with accounts made and read back by account-rows. */
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
      await insertAccountRow(ds, id, f);
      return id;
    },
    balances: (id) => accountBalances(ds, id),
    close: () => ds.destroy(),
  };
}
