import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, QueryFailedError, QueryRunner } from 'typeorm';
import { isDeadlock, isLockWaitTimeout } from './db-errors';
import { backgroundScope, SqliteConnection, SqliteGate, SqliteStatement, unitScope, UnitScope } from './sqlite-gate';
import { decodeAll, type Query, type RawRow, type Steps, type Stmt, type StmtResult } from './sql';
import type { DbCapabilities } from './db-capabilities';

/** A transaction in progress: statements and TypeORM repositories that belong to it. */
export interface Tx {
  run(stmt: Stmt): Promise<StmtResult>;
  /** The records `q` returns. */
  read<T>(q: Query<T>): Promise<T[]>;
  /** Rows changed. */
  exec(stmt: Stmt): Promise<number>;
  /** TypeORM's manager bound to this transaction. */
  readonly manager: EntityManager;
}

export interface UnitOptions {
  /**
   * How often the whole unit is run again after the database rolled it back. Deadlocks are resolved
   * at once (the other transaction went on): 5 by default. A lock wait timeout already waited
   * DB_LOCK_WAIT_TIMEOUT_S on a holder that may be frozen: 0 by default (the caller tries later).
   */
  retry?: { deadlocks?: number; lockTimeouts?: number };
  /** Test probes only: awaited inside the transaction after its first statement (not on the embedded database). */
  afterFirst?: () => Promise<void>;
}

interface OpenTx extends Tx, UnitScope {
  /** Run after the outermost commit (afterCommit), in order; dropped with a rollback. */
  committed: (() => void)[];
}

const log = new Logger('UnitOfWork');

/**
 * The one way to change several rows atomically, and to run any statement. A unit joins the unit
 * already open in the same async context (nesting: one transaction, the outermost commits), and is
 * run again on a deadlock. On MySQL/MariaDB a unit runs on one pooled connection; on the embedded
 * database the gate (sqlite-gate.ts) serialises units on its one connection, and `steps` units run
 * synchronously inside one better-sqlite3 transaction, so they neither wait for nor interleave
 * with anything.
 */
@Injectable()
export class UnitOfWork {
  readonly capabilities: DbCapabilities;
  /** Statements run through the unit of work (benchmarks report statements per message). */
  statements = 0;
  private readonly gate: SqliteGate | null;
  private readonly prepared = new Map<string, SqliteStatement>();

  constructor(@InjectDataSource() private readonly ds: DataSource) {
    this.gate = SqliteGate.of(ds);
    this.capabilities = {
      skipLocked: this.gate === null,
      rowLocks: this.gate === null,
      concurrentWrites: this.gate === null,
      embedded: this.gate !== null,
      updateFrom: this.gate === null ? 'join' : 'from',
      upsert: this.gate === null ? 'on-duplicate-key' : 'on-conflict',
    };
  }

  /** Runs `work` atomically (joining the unit already open in this async context). */
  async transaction<T>(work: (tx: Tx) => Promise<T>, opts: UnitOptions = {}): Promise<T> {
    const open = this.current();
    if (open) return work(open);
    const gate = this.gate;
    if (gate) return gate.exclusive(() => this.sqliteUnit(gate.conn, work));
    return this.retrying(opts, (probe) => this.mysqlUnit(work, probe));
  }

  /** Runs a unit written as statements (see `Steps`); the hot paths of bulk sending use this form. */
  async steps<T>(work: () => Steps<T>, opts: UnitOptions = {}): Promise<T> {
    const open = this.current();
    if (open) return drive(work(), (s) => open.run(s));
    const gate = this.gate;
    if (gate) return gate.exclusive(() => this.sqliteSteps(gate.conn, work));
    return this.retrying(opts, (probe) => this.mysqlUnit((tx) => drive(work(), (s) => tx.run(s)), probe));
  }

  /**
   * One statement: in the open unit if there is one, else on its own, run again when the database
   * picked it as a deadlock's victim (it rolled the statement back, so it had no effect): a write
   * racing another transaction over the same rows and indexes must not fail the request.
   */
  async run(stmt: Stmt): Promise<StmtResult> {
    const open = this.current();
    if (open) return open.run(stmt);
    const gate = this.gate;
    if (gate) return gate.exclusive(() => this.sqliteExec(gate.conn, stmt));
    return this.retrying({}, async () => {
      const qr = this.ds.createQueryRunner();
      try {
        return await this.mysqlExec(qr, stmt);
      } finally {
        await qr.release();
      }
    });
  }

  /** The records `q` returns (in the open unit if there is one). */
  async read<T>(q: Query<T>): Promise<T[]> {
    return decodeAll(q, await this.run(q));
  }

  async exec(stmt: Stmt): Promise<number> {
    return (await this.run(stmt)).affected;
  }

  /**
   * Runs `effect` once the unit open in this async context has committed (at once when none is
   * open): for what must not happen for a rolled-back attempt, such as counting a metric. A unit run
   * again after a deadlock counts only its committed attempt. An effect that throws is logged; the
   * unit stays committed.
   */
  afterCommit(effect: () => void): void {
    const open = this.current();
    if (open) open.committed.push(effect);
    else runEffects([effect]);
  }

  /**
   * Runs `work` as background work (the retention purger): on the embedded database its time holding
   * the one writer is left out of `foregroundMs`, so that figure is how busy everything else kept it.
   */
  background<T>(work: () => Promise<T>): Promise<T> {
    return backgroundScope.run(true, work);
  }

  /**
   * Milliseconds the one writer was held by units and statements outside `background`, since start;
   * null where writes run side by side on pooled connections (one unit does not stop the others).
   */
  foregroundMs(): number | null {
    return this.gate?.foregroundMs ?? null;
  }

  /** A unit is open in this async context (work done now joins it). */
  get inUnit(): boolean {
    return this.current() !== null;
  }

  /**
   * How batches of writes are coalesced on this database (common/coalescer.ts): two in flight where
   * writes overlap (one on the embedded database's one writer), and a request made inside an open
   * unit written alone in it.
   */
  get coalescing(): { maxInFlight: number; alone: () => boolean } {
    return { maxInFlight: this.capabilities.concurrentWrites ? 2 : 1, alone: () => this.inUnit };
  }

  /** TypeORM's manager of the open unit, or the default one outside a unit. */
  get manager(): EntityManager {
    return this.current()?.manager ?? this.ds.manager;
  }

  private current(): OpenTx | null {
    const scope = unitScope.getStore() as OpenTx | undefined;
    return scope && !scope.closed ? scope : null;
  }

  /** Runs `attempt` again while the database rolled it back for a reason `opts.retry` allows; the probe goes to the first attempt only. */
  private async retrying<T>(opts: UnitOptions, attempt: (probe: UnitOptions['afterFirst']) => Promise<T>): Promise<T> {
    const limits = { deadlocks: opts.retry?.deadlocks ?? 5, lockTimeouts: opts.retry?.lockTimeouts ?? 0 };
    const used = { deadlocks: 0, lockTimeouts: 0 };
    for (let n = 0; ; n++) {
      try {
        return await attempt(n === 0 ? opts.afterFirst : undefined);
      } catch (err) {
        if (isDeadlock(err) && used.deadlocks++ < limits.deadlocks) continue;
        if (isLockWaitTimeout(err) && used.lockTimeouts++ < limits.lockTimeouts) continue;
        throw err;
      }
    }
  }

  private async mysqlUnit<T>(work: (tx: Tx) => Promise<T>, afterFirst?: () => Promise<void>): Promise<T> {
    const qr = this.ds.createQueryRunner();
    let first = afterFirst;
    const tx: OpenTx = {
      closed: false,
      committed: [],
      manager: qr.manager,
      run: async (stmt) => {
        const r = await this.mysqlExec(qr, stmt);
        if (first) await first().finally(() => (first = undefined));
        return r;
      },
      read: async (q) => decodeAll(q, await tx.run(q)),
      exec: async (stmt) => (await tx.run(stmt)).affected,
    };
    try {
      await qr.startTransaction();
      const result = await unitScope.run(tx, () => work(tx));
      await qr.commitTransaction();
      tx.closed = true;
      runEffects(tx.committed);
      return result;
    } catch (err) {
      if (qr.isTransactionActive) await qr.rollbackTransaction().catch(() => undefined);
      throw err;
    } finally {
      tx.closed = true;
      await qr.release();
    }
  }

  private async sqliteUnit<T>(conn: SqliteConnection, work: (tx: Tx) => Promise<T>): Promise<T> {
    const tx: OpenTx = {
      closed: false,
      committed: [],
      manager: this.ds.manager,
      run: async (stmt) => this.sqliteExec(conn, stmt),
      read: async (q) => decodeAll(q, this.sqliteExec(conn, q)),
      exec: async (stmt) => this.sqliteExec(conn, stmt).affected,
    };
    this.prepare(conn, 'BEGIN').run();
    try {
      const result = await unitScope.run(tx, () => work(tx));
      this.prepare(conn, 'COMMIT').run();
      tx.closed = true;
      runEffects(tx.committed);
      return result;
    } catch (err) {
      if (conn.inTransaction) this.prepare(conn, 'ROLLBACK').run();
      throw err;
    } finally {
      tx.closed = true;
    }
  }

  /** The whole unit in one synchronous better-sqlite3 transaction. */
  private sqliteSteps<T>(conn: SqliteConnection, work: () => Steps<T>): T {
    this.prepare(conn, 'BEGIN').run();
    try {
      const gen = work();
      let next = gen.next();
      while (!next.done) next = gen.next(this.sqliteExec(conn, next.value));
      this.prepare(conn, 'COMMIT').run();
      return next.value;
    } catch (err) {
      if (conn.inTransaction) this.prepare(conn, 'ROLLBACK').run();
      throw err;
    }
  }

  private sqliteExec(conn: SqliteConnection, stmt: Stmt): StmtResult {
    this.statements++;
    try {
      const prepared = this.prepare(conn, stmt.sql);
      if (prepared.reader) return { affected: 0, rows: prepared.all(...stmt.params) as unknown[] as RawRow[] };
      return { affected: prepared.run(...stmt.params).changes, rows: [] };
    } catch (err) {
      // The shape TypeORM gives driver errors on every dialect (`driverError` holds the driver's own).
      throw new QueryFailedError(stmt.sql, stmt.params, err as Error);
    }
  }

  private prepare(conn: SqliteConnection, text: string): SqliteStatement {
    let p = this.prepared.get(text);
    if (!p) {
      p = conn.prepare(text);
      // Bounded: statement texts vary with list lengths (IN (?, ?...)).
      if (this.prepared.size > 500) this.prepared.clear();
      this.prepared.set(text, p);
    }
    return p;
  }

  private async mysqlExec(qr: QueryRunner, stmt: Stmt): Promise<StmtResult> {
    this.statements++;
    const r = (await qr.query(stmt.sql, stmt.params, true)) as { records?: unknown; affected?: number };
    return { affected: r.affected ?? 0, rows: (Array.isArray(r.records) ? (r.records as unknown[]) : []) as RawRow[] };
  }
}

/** Effects of a committed unit, each on its own: one that throws is logged, the rest still run. */
function runEffects(effects: (() => void)[]): void {
  for (const effect of effects) {
    try {
      effect();
    } catch (err) {
      log.error(`an after-commit effect failed: ${String(err)}`);
    }
  }
}

/** Runs a generator of statements through an async executor. */
async function drive<T>(gen: Steps<T>, exec: (s: Stmt) => Promise<StmtResult>): Promise<T> {
  let next = gen.next();
  while (!next.done) next = gen.next(await exec(next.value));
  return next.value;
}
