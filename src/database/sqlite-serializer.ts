import { AsyncLocalStorage } from 'node:async_hooks';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';

/** A FIFO async mutex: one holder at a time, in arrival order. */
class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  runExclusive<T>(fn: () => Promise<T> | T): Promise<T> {
    const run = this.tail.then(fn);
    this.tail = run.catch(() => undefined);
    return run;
  }
}

const insideTransaction = new AsyncLocalStorage<true>();
const LOCKS = new WeakMap<DataSource, Mutex>();

/**
 * TypeORM's better-sqlite3 driver hands every caller the same QueryRunner on the one connection, so
 * two concurrent `transaction()` calls would interleave their statements (and a rollback could undo
 * another request's committed-looking work). On SQLite we therefore serialise: a transaction holds a
 * process-wide mutex for its whole duration, and statements issued outside any transaction wait for
 * it. Statements inside the transaction (same async context) pass straight through.
 * MySQL has a connection per transaction and is left alone.
 */
export function serializeSqliteTransactions(ds: DataSource): DataSource {
  if (ds.options.type !== 'better-sqlite3') return ds;
  const mutex = new Mutex();
  LOCKS.set(ds, mutex);

  type Patchable = { query: (...args: unknown[]) => Promise<unknown> };
  const runner = ds.createQueryRunner() as QueryRunner as unknown as Patchable;
  const query = runner.query.bind(runner);
  runner.query = (...args: unknown[]) => (insideTransaction.getStore() ? query(...args) : mutex.runExclusive(() => query(...args)));

  const manager = ds.manager as EntityManager as unknown as { transaction: (...args: unknown[]) => Promise<unknown> };
  const transaction = manager.transaction.bind(manager) as (...args: unknown[]) => Promise<unknown>;
  manager.transaction = (...args: unknown[]) =>
    insideTransaction.getStore()
      ? transaction(...args)
      : mutex.runExclusive(() => insideTransaction.run(true, () => transaction(...args)));
  return ds;
}

/**
 * For code that drives better-sqlite3 synchronously (bulk batches): run it while no TypeORM
 * transaction is open, so it can neither nest inside nor be rolled back by someone else's.
 */
export function runExclusiveOnSqlite<T>(ds: DataSource, fn: () => T): Promise<T> {
  const mutex = LOCKS.get(ds);
  if (!mutex || insideTransaction.getStore()) return Promise.resolve().then(fn);
  return mutex.runExclusive(fn);
}
