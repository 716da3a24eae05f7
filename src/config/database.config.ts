import { ConfigError, type EnvReader } from './env-reader';
import type { RuntimeMode } from './runtime-mode';

/** Where the data lives: the embedded SQLite file or a MySQL/MariaDB database. */
export type DatabaseConfig =
  | { type: 'sqlite'; path: string }
  | { type: 'mysql'; host: string; port: number; username: string; password: string; database: string };

export interface DatabaseTuning {
  /** DATABASE_URL as set (or the default). */
  url: string;
  /** DB_CREATE: create a missing MySQL database at start-up (when the user may). */
  create: boolean;
  /** MySQL connection pool size per replica. */
  poolSize: number;
  /** Attempts to reach the database at start-up. */
  connectRetries: number;
  /**
   * Session settings of every MySQL/MariaDB connection: how long a statement waits for a row lock,
   * and after how long the server ends a transaction whose client went quiet (a paused or cut-off
   * replica), so its row locks never outlive a bulk lease by much.
   */
  lockWaitTimeoutS: number;
  idleTransactionTimeoutS: number;
}

/** The connection target (`type` and its fields) with the settings around it. */
export type DatabaseSection = DatabaseConfig & DatabaseTuning;

export interface RedisConfig {
  /** Shared throttler storage; null: counters stay in this process. */
  url: string | null;
  /** Prefix of every Redis key (the throttler's counters): replicas of one deployment share it. */
  keyPrefix: string;
}

const DEFAULT_DATABASE_URL = 'sqlite:data/messaging.sqlite';

/** @param bulkDispatchLeaseMs the longest lease a transaction's locks must not outlive by much. */
export function databaseSection(r: EnvReader, mode: RuntimeMode, bulkDispatchLeaseMs: number): DatabaseSection {
  const url = r.string('DATABASE_URL', DEFAULT_DATABASE_URL);
  let target: DatabaseConfig;
  try {
    target = parseDatabaseUrl(url);
  } catch (err) {
    r.fail((err as ConfigError).message);
    target = parseDatabaseUrl(DEFAULT_DATABASE_URL);
  }
  // Half a lease (at least 2 s, so a busy event loop does not lose its transactions): a frozen
  // lease holder's locks are gone before its lease is, and the next replica takes over on time.
  const leaseS = Math.floor(bulkDispatchLeaseMs / 1000);
  return {
    ...target,
    url,
    create: r.bool('DB_CREATE', false),
    poolSize: r.int('DB_POOL_SIZE', 20, 1, 500),
    connectRetries: r.int('DB_CONNECT_RETRIES', mode.isProduction ? 10 : 0, 0, 100),
    idleTransactionTimeoutS: r.int('DB_IDLE_TRANSACTION_TIMEOUT_S', Math.max(2, Math.floor(leaseS / 2)), 1, 3600),
    lockWaitTimeoutS: r.int('DB_LOCK_WAIT_TIMEOUT_S', 5, 1, 3600),
  };
}

export function redisSection(r: EnvReader): RedisConfig {
  const url = r.optional('REDIS_URL');
  if (url !== null && !/^rediss?:\/\//.test(url)) r.fail('REDIS_URL must start with redis:// or rediss://');
  const keyPrefix = r.raw('REDIS_KEY_PREFIX') ?? 'msgsvc:';
  if (!/^[\w:.-]{0,100}$/.test(keyPrefix)) r.fail('REDIS_KEY_PREFIX must be at most 100 letters, digits, _ : . or -');
  return { url, keyPrefix };
}

export function parseDatabaseUrl(url: string): DatabaseConfig {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\//, '');
    if (!path) throw new ConfigError('DATABASE_URL: sqlite URL needs a path, e.g. sqlite:data/messaging.sqlite');
    return { type: 'sqlite', path };
  }
  if (url.startsWith('mysql://') || url.startsWith('mariadb://')) {
    let u: URL;
    try {
      u = new URL(url.replace(/^mariadb:/, 'mysql:'));
    } catch {
      throw new ConfigError('DATABASE_URL is not a valid mysql:// URL');
    }
    const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
    if (!database)
      throw new ConfigError(
        'DATABASE_URL: mysql URL needs a database name, e.g. mysql://user:pass@host:3306/messaging',
      );
    return {
      type: 'mysql',
      host: u.hostname || '127.0.0.1',
      port: u.port ? Number(u.port) : 3306,
      username: decodeURIComponent(u.username || 'root'),
      password: decodeURIComponent(u.password || ''),
      database,
    };
  }
  throw new ConfigError('DATABASE_URL must start with sqlite: or mysql://');
}
