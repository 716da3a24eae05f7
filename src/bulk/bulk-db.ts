import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { isDeadlock } from '../database/db-errors';
import { runExclusiveOnSqlite } from '../database/sqlite-serializer';

export type SqlParam = string | number | null;
export interface Stmt {
  sql: string;
  params: SqlParam[];
}
export interface StmtResult {
  affected: number;
  rows: Record<string, unknown>[];
}
/** A unit of work written once for both dialects: yield statements, receive their results. */
export type Work<T> = Generator<Stmt, T, StmtResult>;

export const sql = (text: string, ...params: SqlParam[]): Stmt => ({ sql: text, params });
/** `?, ?, ?` for an `IN (...)` of `n` parameters. */
export const inList = (n: number): string => Array(n).fill('?').join(', ');

interface SqliteStatement {
  reader: boolean;
  all(...p: SqlParam[]): Record<string, unknown>[];
  run(...p: SqlParam[]): { changes: number };
}
interface SqliteDb {
  prepare(sql: string): SqliteStatement;
  transaction<F extends () => unknown>(fn: F): F;
}

/**
 * The bulk module's database access. On SQLite a unit of work runs synchronously inside one
 * better-sqlite3 transaction, so no other query of the process can slip into it (TypeORM shares one
 * SQLite connection); on MySQL/MariaDB it runs on a pooled connection in a real transaction,
 * retried on deadlock. `mysql` also tells callers they may use `FOR UPDATE SKIP LOCKED`.
 */
@Injectable()
export class BulkDb {
  readonly mysql: boolean;
  private readonly stmts = new Map<string, SqliteStatement>();
  statements = 0;

  constructor(@InjectDataSource() private readonly ds: DataSource) {
    this.mysql = ds.options.type === 'mysql' || ds.options.type === 'mariadb';
  }

  /** One statement outside a transaction. */
  async one(stmt: Stmt): Promise<StmtResult> {
    if (this.mysql) {
      const qr = this.ds.createQueryRunner();
      try {
        return await this.execMysql(qr.query.bind(qr), stmt);
      } finally {
        await qr.release();
      }
    }
    return this.run(function* (): Work<StmtResult> {
      return yield stmt;
    });
  }

  async rows<T = Record<string, unknown>>(stmt: Stmt): Promise<T[]> {
    return (await this.one(stmt)).rows as T[];
  }

  /**
   * Runs `work` atomically. `afterFirst` (test probes only, MySQL only) is awaited inside the
   * transaction after its first statement.
   */
  async run<T>(work: () => Work<T>, afterFirst?: () => Promise<void>): Promise<T> {
    // Never inside (or interleaved with) another request's open TypeORM transaction on the shared connection.
    if (!this.mysql) return runExclusiveOnSqlite(this.ds, () => this.runSqlite(work));
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.runMysql(work, attempt === 0 ? afterFirst : undefined);
      } catch (err) {
        // A deadlock is resolved at once (the other transaction went on): retry. A lock wait timeout
        // already waited DB_LOCK_WAIT_TIMEOUT_S on a holder that may be frozen: the caller tries later.
        if (isDeadlock(err) && attempt < 5) continue;
        throw err;
      }
    }
  }

  private sqlite(): SqliteDb {
    return (this.ds.driver as unknown as { databaseConnection: SqliteDb }).databaseConnection;
  }

  private runSqlite<T>(work: () => Work<T>): T {
    const db = this.sqlite();
    return db.transaction(() => {
      const gen = work();
      let next = gen.next();
      while (!next.done) {
        next = gen.next(this.execSqlite(db, next.value));
      }
      return next.value;
    })();
  }

  private execSqlite(db: SqliteDb, stmt: Stmt): StmtResult {
    this.statements++;
    let prepared = this.stmts.get(stmt.sql);
    if (!prepared) {
      prepared = db.prepare(stmt.sql);
      if (this.stmts.size > 500) this.stmts.clear();
      this.stmts.set(stmt.sql, prepared);
    }
    if (prepared.reader) return { affected: 0, rows: prepared.all(...stmt.params) };
    return { affected: prepared.run(...stmt.params).changes, rows: [] };
  }

  private async runMysql<T>(work: () => Work<T>, afterFirst?: () => Promise<void>): Promise<T> {
    const qr = this.ds.createQueryRunner();
    try {
      await qr.startTransaction();
      const gen = work();
      let next = gen.next();
      for (let n = 0; !next.done; n++) {
        const result = await this.execMysql(qr.query.bind(qr), next.value);
        if (n === 0 && afterFirst) await afterFirst();
        next = gen.next(result);
      }
      await qr.commitTransaction();
      return next.value;
    } catch (err) {
      if (qr.isTransactionActive) await qr.rollbackTransaction().catch(() => undefined);
      throw err;
    } finally {
      await qr.release();
    }
  }

  private async execMysql(query: (q: string, p: SqlParam[], structured: true) => Promise<{ records?: unknown[]; affected?: number }>, stmt: Stmt): Promise<StmtResult> {
    this.statements++;
    const r = await query(stmt.sql, stmt.params, true);
    return { affected: r.affected ?? 0, rows: (Array.isArray(r.records) ? r.records : []) as Record<string, unknown>[] };
  }
}
