import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';

/** A fresh database for one benchmark child: a new MariaDB schema (dropped by `drop`) or a SQLite file. */
export async function benchDatabase(
  name: string,
  mysqlUrl: string | null,
  collation = 'utf8mb4_general_ci',
): Promise<{ databaseUrl: string; drop: () => Promise<void> }> {
  if (!mysqlUrl)
    return {
      databaseUrl: `sqlite:${join(mkdtempSync(join(tmpdir(), `${name}-`)), 'bench.sqlite')}`,
      drop: async () => undefined,
    };
  const u = new URL(mysqlUrl);
  const schema = `${name.replace(/-/g, '_')}_${process.pid}`;
  const conn = await createConnection({
    host: u.hostname,
    port: Number(u.port || 3306),
    user: decodeURIComponent(u.username || 'root'),
    password: decodeURIComponent(u.password),
  });
  await conn.query(`CREATE DATABASE \`${schema}\` CHARACTER SET utf8mb4 COLLATE ${collation}`);
  u.pathname = `/${schema}`;
  return {
    databaseUrl: u.toString(),
    drop: async () => {
      await conn.query(`DROP DATABASE IF EXISTS \`${schema}\``);
      await conn.end();
    },
  };
}

/** What `countStatements` saw: statements (transaction control left out) and how many of each shape. */
export interface StatementCount {
  statements: number;
  /** The first 70 characters of each statement, whitespace collapsed. */
  shapes: Map<string, number>;
  /** Stops counting (puts the logger back). */
  stop(): void;
}

/**
 * Counts the statements TypeORM's driver runs on `ds` (on MySQL every statement of the app; the
 * embedded database's own prepared statements do not reach the logger). BEGIN / START TRANSACTION /
 * COMMIT / ROLLBACK are left out on both dialects, and so is anything run while `skip()` is true (a
 * benchmark's own progress poll).
 */
export function countStatements(ds: { logger: unknown }, skip: () => boolean = () => false): StatementCount {
  const logger = ds.logger as { logQuery: (...a: unknown[]) => void };
  const orig = logger.logQuery.bind(logger);
  const count: StatementCount = { statements: 0, shapes: new Map(), stop: () => (logger.logQuery = orig) };
  logger.logQuery = (...a: unknown[]) => {
    const text = String(a[0]);
    if (!skip() && !/^\s*(BEGIN|START TRANSACTION|COMMIT|ROLLBACK)/i.test(text)) {
      count.statements++;
      // Only the head is kept: collapsing the whole text cost ~2% of the process on 900-row statements.
      const shape = text.slice(0, 200).replace(/\s+/g, ' ').slice(0, 70);
      count.shapes.set(shape, (count.shapes.get(shape) ?? 0) + 1);
    }
    orig(...a);
  };
  return count;
}

/**
 * CPU seconds used so far by a database server running on this machine (a process named mariadbd or
 * mysqld, read from /proc), or null when there is none to see: the benchmark's own share of the box
 * is then all it can report.
 */
export function localServerCpu(): (() => number) | null {
  let dirs: string[];
  try {
    dirs = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  const pid = dirs.find((d) => {
    try {
      return ['mariadbd', 'mysqld'].includes(readFileSync(`/proc/${d}/comm`, 'utf8').trim());
    } catch {
      return false;
    }
  });
  if (!pid) return null;
  return () => processCpu(Number(pid));
}

/** CPU seconds (user and system) used so far by process `pid`, from /proc/<pid>/stat. */
export function processCpu(pid: number): number {
  // Fields 14 and 15 of /proc/<pid>/stat (after the parenthesised name): user and system time in clock ticks (100/s).
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * The server's handler counters (MySQL/MariaDB, all sessions), read now; null on the embedded
 * database: rows written (inserted, updated, deleted), rows read (by key, next in an index, scanned)
 * and rows written to internal temporary tables (GROUP BY, sorting). Differences of two readings say
 * how many rows a scenario touched: unlike CPU time, they do not move with the box's load.
 */
export async function handlerCounts(
  ds: { query(sql: string): Promise<unknown> },
  mysql: boolean,
): Promise<Record<'written' | 'read' | 'scanned' | 'tmp', number> | null> {
  if (!mysql) return null;
  const rows = (await ds.query("SHOW GLOBAL STATUS LIKE 'Handler_%'")) as { Variable_name: string; Value: string }[];
  const get = (...names: string[]) =>
    names.reduce(
      (n, name) => n + Number(rows.find((r) => r.Variable_name.toLowerCase() === `handler_${name}`)?.Value ?? 0),
      0,
    );
  return {
    written: get('write', 'update', 'delete'),
    read: get('read_key', 'read_next', 'read_prev', 'read_first', 'read_last', 'read_rnd', 'read_rnd_next'),
    scanned: get('read_rnd_next'),
    tmp: get('tmp_write', 'tmp_update'),
  };
}
