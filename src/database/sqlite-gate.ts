import { AsyncLocalStorage } from 'node:async_hooks';
import type { DataSource, QueryRunner } from 'typeorm';
import type { SqlParam } from './sql';

/** The parts of a better-sqlite3 connection the unit of work uses. */
export interface SqliteStatement {
  reader: boolean;
  all(...p: SqlParam[]): Record<string, unknown>[];
  run(...p: SqlParam[]): { changes: number };
}
export interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
  pragma(s: string): unknown;
  readonly inTransaction: boolean;
}

/** Work marked as background (UnitOfWork.background): its time holding the gate is not counted as others' load. */
export const backgroundScope = new AsyncLocalStorage<true>();

/** A FIFO async mutex: one holder at a time, in arrival order; counts how long holders outside the background held it. */
class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  /** Milliseconds the mutex was held by work outside the background scope, since it was made. */
  foregroundMs = 0;

  runExclusive<T>(fn: () => Promise<T> | T): Promise<T> {
    const counted = backgroundScope.getStore() === undefined;
    const run = this.tail.then(() => {
      const t0 = performance.now();
      const held = () => {
        if (counted) this.foregroundMs += performance.now() - t0;
      };
      let r: Promise<T> | T;
      try {
        r = fn();
      } catch (err) {
        held();
        throw err;
      }
      if (r instanceof Promise) return r.finally(held);
      held();
      return r;
    });
    this.tail = run.catch(() => undefined);
    return run;
  }
}

/** The open unit of work of the current async context (closed once it committed or rolled back). */
export interface UnitScope {
  closed: boolean;
}
export const unitScope = new AsyncLocalStorage<UnitScope>();

/** Inside an open unit of work (statements there belong to it). */
export function insideOpenUnit(): boolean {
  const scope = unitScope.getStore();
  return scope !== undefined && !scope.closed;
}

/** Connections handed to our `prepareDatabase` hook, by the hook (ds.options.prepareDatabase is public). */
const CONNECTIONS = new WeakMap<object, { conn: SqliteConnection | null }>();

/**
 * The `prepareDatabase` option of the embedded database: sets the pragmas and keeps the connection
 * better-sqlite3 opened, so the unit of work can run synchronous transactions on it.
 */
export function sqlitePrepareHook(pragmas: string[]): (conn: SqliteConnection) => void {
  const slot: { conn: SqliteConnection | null } = { conn: null };
  const hook = (conn: SqliteConnection) => {
    for (const p of pragmas) conn.pragma(p);
    slot.conn = conn;
  };
  CONNECTIONS.set(hook, slot);
  return hook;
}

/**
 * The embedded database has one connection that TypeORM shares between every caller, so a unit of
 * work that awaits between its statements would otherwise take in (and could roll back) statements
 * of unrelated requests. The gate serialises: a unit holds it for its whole duration, TypeORM
 * statements issued outside any open unit wait for it, and statements inside the unit's async
 * context pass straight through. Installed once per DataSource by the database module.
 */
export class SqliteGate {
  private readonly mutex = new Mutex();

  private constructor(readonly conn: SqliteConnection) {}

  /** The gate of an embedded DataSource (null for other dialects); installs it on first use. */
  static of(ds: DataSource): SqliteGate | null {
    return GATES.get(ds) ?? null;
  }

  static install(ds: DataSource): void {
    if (ds.options.type !== 'better-sqlite3' || GATES.has(ds)) return;
    const slot = ds.options.prepareDatabase ? CONNECTIONS.get(ds.options.prepareDatabase) : undefined;
    if (!slot?.conn)
      throw new Error("the embedded database was opened without the unit of work's prepareDatabase hook");
    const gate = new SqliteGate(slot.conn);
    // TypeORM hands every caller this one runner on the embedded database: its statements outside
    // an open unit wait their turn at the gate (public QueryRunner.query, wrapped once here).
    const runner: QueryRunner = ds.createQueryRunner();
    const query = runner.query.bind(runner) as (...args: unknown[]) => Promise<unknown>;
    (runner as { query: (...args: unknown[]) => Promise<unknown> }).query = (...args: unknown[]) =>
      insideOpenUnit() ? query(...args) : gate.mutex.runExclusive(() => query(...args));
    GATES.set(ds, gate);
  }

  /** Milliseconds the one writer was held by work outside UnitOfWork.background (its units and statements). */
  get foregroundMs(): number {
    return this.mutex.foregroundMs;
  }

  /** Runs `fn` holding the gate (FIFO); inside an open unit it runs at once (the unit holds it). */
  exclusive<T>(fn: () => Promise<T> | T): Promise<T> {
    if (insideOpenUnit()) return Promise.resolve().then(fn);
    return this.mutex.runExclusive(fn);
  }
}

const GATES = new WeakMap<DataSource, SqliteGate>();
