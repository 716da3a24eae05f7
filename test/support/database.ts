import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import {
  copyMigratedFile,
  fillMigratedDatabase,
  prepareMigratedTemplate,
  releaseMigratedTemplate,
} from './migrated-template';

/**
 * The e2e database comes from the environment (Vendure-style): TEST_MYSQL_URL set -> a fresh
 * MySQL/MariaDB database per app; otherwise a fresh SQLite file. Either way it is a copy of a database
 * the run's global setup migrated once (test/support/migrated-template.ts), or empty on request.
 */
export const TEST_MYSQL_URL = process.env.TEST_MYSQL_URL || '';
export const TEST_DB_PREFIX = 'msgtest_';

export function isMysqlRun(): boolean {
  return TEST_MYSQL_URL !== '';
}

let counter = 0;

/** A connection to the server of a `mysql://` URL, on no database. */
export function serverConnection(url: string): ReturnType<typeof createConnection> {
  const u = new URL(url);
  return createConnection({
    host: u.hostname,
    port: Number(u.port || 3306),
    user: decodeURIComponent(u.username || 'root'),
    password: decodeURIComponent(u.password),
  });
}

/** `_<suite file>` of the suite running now (so a database left behind names its suite), or ''. */
function suiteTag(): string {
  const path = typeof expect === 'function' ? expect.getState().testPath : undefined;
  if (!path) return '';
  return `_${basename(path)
    .replace(/\.e2e-spec\.ts$/, '')
    .replace(/[^a-z0-9]+/gi, '_')
    .slice(0, 30)}`;
}

/** A new database of its own; migrated (a copy of this process's migrated template) unless `migrated: false`. */
export async function freshDatabaseUrl(opts: { migrated?: boolean } = {}): Promise<string> {
  const migrated = opts.migrated ?? true;
  if (!isMysqlRun()) {
    const path = join(mkdtempSync(join(tmpdir(), 'msg-e2e-')), 'test.sqlite');
    if (migrated) await copyMigratedFile(path);
    return `sqlite:${path}`;
  }
  const name = newDatabaseName();
  const conn = await serverConnection(TEST_MYSQL_URL);
  try {
    await conn.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`);
    if (migrated) {
      const scratch = `${newDatabaseName()}_template`;
      await fillMigratedDatabase(conn, name, { name: scratch, url: urlOf(scratch) });
    }
  } finally {
    await conn.end();
  }
  return urlOf(name);
}

/** Global setup: migrates the run's template on the run's dialect, once for every suite. */
export async function prepareRunTemplate(): Promise<void> {
  if (!isMysqlRun()) return prepareMigratedTemplate();
  const conn = await serverConnection(TEST_MYSQL_URL);
  try {
    const name = `${newDatabaseName()}_template`;
    await prepareMigratedTemplate({ conn, scratch: { name, url: urlOf(name) } });
  } finally {
    await conn.end();
  }
}

/** Global teardown: removes the run's template. */
export async function releaseRunTemplate(): Promise<void> {
  const database = releaseMigratedTemplate();
  if (database) await dropDatabase(urlOf(database));
}

function newDatabaseName(): string {
  return `${TEST_DB_PREFIX}${process.pid}_${++counter}_${randomBytes(3).toString('hex')}${suiteTag()}`;
}

function urlOf(name: string): string {
  const url = new URL(TEST_MYSQL_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropDatabase(url: string): Promise<void> {
  if (!url.startsWith('mysql')) return;
  const name = new URL(url).pathname.slice(1);
  const conn = await serverConnection(url);
  try {
    await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
  } finally {
    await conn.end();
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The parent of a live process (Linux /proc), or null. */
export function parentOf(pid: number): number | null {
  try {
    // "pid (comm) state ppid ...": comm may hold spaces, so read after its closing parenthesis.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/**
 * Drops the test databases (named `msgtest_<pid>_...` by the process that made them) except those of
 * processes `spare` says are still at work; returns the names dropped.
 */
export async function dropDatabasesOfEndedRuns(spare: (pid: number) => boolean): Promise<string[]> {
  const conn = await serverConnection(TEST_MYSQL_URL);
  const dropped: string[] = [];
  try {
    const [rows] = await conn.query(`SHOW DATABASES LIKE '${TEST_DB_PREFIX}%'`);
    for (const row of rows as Record<string, string>[]) {
      const name = Object.values(row)[0];
      const pid = Number(name.slice(TEST_DB_PREFIX.length).split('_')[0]);
      if (Number.isInteger(pid) && pid > 0 && spare(pid)) continue;
      await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
      dropped.push(name);
    }
  } finally {
    await conn.end();
  }
  return dropped;
}
