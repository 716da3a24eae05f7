import type { DataSource, QueryRunner } from 'typeorm';

/**
 * Runs `work` in one transaction and hands it the transaction's QueryRunner (for raw SQL). On
 * SQLite the database module serialises transactions on the shared connection, so nothing interleaves.
 */
export function inTransaction<T>(ds: DataSource, work: (runner: QueryRunner) => Promise<T>): Promise<T> {
  return ds.transaction(async (em) => {
    if (!em.queryRunner) throw new Error('transaction without a query runner');
    return work(em.queryRunner);
  });
}
