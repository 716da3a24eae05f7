// The one place that reads the environment. Every value is validated at boot; a bad value stops
// start-up with a message naming the variable.
import { dirname, join } from 'node:path';

export type Env = Record<string, string | undefined>;

export type DatabaseConfig =
  | { type: 'sqlite'; path: string }
  | { type: 'mysql'; host: string; port: number; username: string; password: string; database: string };

export type ChannelName = 'local_sms' | 'chatapp' | 'chatapp_web' | 'messaging_bot' | 'email';
export const CHANNELS: readonly ChannelName[] = ['local_sms', 'chatapp', 'chatapp_web', 'messaging_bot', 'email'];

export class ConfigError extends Error {}

/**
 * The only NODE_ENV values that relax production rules. Anything else (`prod`, `staging`,
 * `PRODUCTION`, an empty string) is production: a typo must fail safe, not run with the
 * development secret and a printed demo key. Unset means development, so `npm start` just works.
 */
const NON_PRODUCTION_ENVS: readonly string[] = ['development', 'test'];
const DEVELOPMENT_SECRET = 'development-only-secret-do-not-use';
/** Published values (this file, earlier docker-compose.yml): never accepted in production. */
const KNOWN_SECRETS: readonly string[] = [DEVELOPMENT_SECRET, 'change-me-to-a-long-random-secret', 'change-me-admin-token'];

export class AppConfig {
  nodeEnv: string;
  isProduction: boolean;
  port: number;
  host: string;
  publicBaseUrl: string;
  databaseUrl: string;
  database: DatabaseConfig;
  /** DB_CREATE: create a missing MySQL database at start-up (when the user may). */
  databaseCreate: boolean;
  adminToken: string | null;
  redisUrl: string | null;
  /** Prefix of every Redis key (the throttler's counters): replicas of one deployment share it. */
  redisKeyPrefix: string;
  appSecret: string;
  throttleLimit: number;
  throttleTtlSeconds: number;
  webhookAllowInsecure: boolean;
  /** Ports a fetched/called URL may use when insecure targets are not allowed (WEBHOOK_ALLOWED_PORTS). */
  webhookAllowedPorts: number[];
  /** Largest attachment our server downloads for an adapter that needs the bytes (SMTP). */
  attachmentMaxBytes: number;
  webhookRetryBaseMs: number;
  bodyLimitBytes: number;
  logLevel: string;
  demoAccount: boolean;
  /** The demo account's key is also written here (mode 0600): next to the SQLite file; null otherwise. */
  demoKeyFile: string | null;
  defaultRegion: string;
  currency: string;
  /** Price per message in minor units, per channel. */
  prices: Record<ChannelName, number>;
  /** Provider adapter per channel (`sandbox` by default). */
  providers: Record<ChannelName, string>;
  providerTimeoutMs: number;
  /** BULK_LEASE_MS as set. */
  bulkLeaseMs: number;
  /** Lease of a dispatched bulk job: BULK_LEASE_MS, but at least two provider timeouts (a call never outlives it). */
  bulkDispatchLeaseMs: number;
  /**
   * Session settings of every MySQL/MariaDB connection: how long a statement waits for a row lock,
   * and after how long the server ends a transaction whose client went quiet (a paused or cut-off
   * replica), so its row locks never outlive a bulk lease by much.
   */
  dbLockWaitTimeoutS: number;
  dbIdleTransactionTimeoutS: number;
  /** Test-only probes in the bulk runner (refused outside NODE_ENV=test). */
  bulkTestHooks: boolean;
  idempotencyWindowHours: number;
  /** A signed WAHA session.status stamped further than this from now is a replay and is ignored. */
  wahaEventMaxAgeSeconds: number;
  /** Serve the OpenAPI UI and JSON at /docs and /docs-json (default: on outside production). */
  docsEnabled: boolean;
  /** Per-client-IP budget of admin, provider-hook and media-preview routes, per window. */
  publicThrottleLimit: number;
  publicThrottleTtlSeconds: number;
  /** Largest element of a streamed bulk body, in bytes (a larger one is refused as soon as it passes this). */
  bulkMaxElementBytes: number;
  /** Disable background loops (unit tests, one-off CLI). */
  schedulersEnabled: boolean;
  /** Serve GET /metrics (Prometheus text format); off: it answers 404 like an unknown route. */
  metricsEnabled: boolean;
  /** When set, GET /metrics needs `Authorization: Bearer <token>`. */
  metricsToken: string | null;
  /** How often the gauges read from tables (jobs, outbox) are refreshed. */
  metricsRefreshMs: number;
  /** SHUTDOWN_GRACE_MS: on SIGTERM, how long work in flight may take to finish before the process exits anyway. */
  shutdownGraceMs: number;
  /** Raw environment, for adapter-specific settings read by `AppConfig.get*` helpers below. */
  private readonly env: Env;

  constructor(env: Env) {
    this.env = env;
  }

  /** Optional string setting of an adapter (e.g. SMTP_HOST). Read here so env stays in one place. */
  optional(name: string): string | null {
    const v = this.env[name];
    return v === undefined || v === '' ? null : v;
  }

  required(name: string): string {
    const v = this.optional(name);
    if (v === null) throw new ConfigError(`${name} is required by the selected provider`);
    return v;
  }

  int(name: string, def: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
    return readInt(this.env, name, def, min, max);
  }

  /** Boolean setting of an adapter (e.g. SMTP_SECURE): 1/true/yes/on or 0/false/no/off. */
  bool(name: string, def: boolean): boolean {
    return readBool(this.env, name, def);
  }
}

function readInt(env: Env, name: string, def: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

/** Comma-separated TCP ports, e.g. "443,8443". */
function readPorts(env: Env, name: string, def: number[]): number[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return def;
  return raw.split(',').map((p) => {
    const n = Number(p.trim());
    if (!/^\d+$/.test(p.trim()) || n < 1 || n > 65535) throw new ConfigError(`${name} must be a comma-separated list of ports (1-65535), got "${raw}"`);
    return n;
  });
}

function readBool(env: Env, name: string, def: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
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
    if (!database) throw new ConfigError('DATABASE_URL: mysql URL needs a database name, e.g. mysql://user:pass@host:3306/messaging');
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

export function loadConfig(env: Env = process.env): AppConfig {
  const c = new AppConfig(env);
  c.nodeEnv = env.NODE_ENV ?? 'development';
  c.isProduction = !NON_PRODUCTION_ENVS.includes(c.nodeEnv);
  c.port = readInt(env, 'PORT', 3000, 0, 65535);
  c.host = env.HOST || '0.0.0.0';
  c.publicBaseUrl = (env.PUBLIC_BASE_URL || `http://localhost:${c.port}`).replace(/\/$/, '');
  c.databaseUrl = env.DATABASE_URL || 'sqlite:data/messaging.sqlite';
  c.database = parseDatabaseUrl(c.databaseUrl);
  c.databaseCreate = readBool(env, 'DB_CREATE', false);
  c.adminToken = env.ADMIN_TOKEN || null;
  if (c.adminToken !== null && c.adminToken.length < 16) throw new ConfigError('ADMIN_TOKEN must be at least 16 characters');
  if (c.isProduction && c.adminToken !== null && KNOWN_SECRETS.includes(c.adminToken)) throw new ConfigError('ADMIN_TOKEN is a published example value; set a random one in production');
  c.redisUrl = env.REDIS_URL || null;
  if (c.redisUrl !== null && !/^rediss?:\/\//.test(c.redisUrl)) throw new ConfigError('REDIS_URL must start with redis:// or rediss://');
  c.redisKeyPrefix = env.REDIS_KEY_PREFIX ?? 'msgsvc:';
  if (!/^[\w:.-]{0,100}$/.test(c.redisKeyPrefix)) throw new ConfigError('REDIS_KEY_PREFIX must be at most 100 letters, digits, _ : . or -');
  const secret = env.APP_SECRET;
  if (!secret && c.isProduction) throw new ConfigError(`APP_SECRET is required in production (NODE_ENV="${c.nodeEnv}"; only development and test are not production)`);
  if (secret && secret.length < 16) throw new ConfigError('APP_SECRET must be at least 16 characters');
  if (secret && c.isProduction && KNOWN_SECRETS.includes(secret)) throw new ConfigError('APP_SECRET is a published example value; set a random one in production');
  c.appSecret = secret || DEVELOPMENT_SECRET;
  c.throttleLimit = readInt(env, 'THROTTLE_LIMIT', 1200, 1);
  c.throttleTtlSeconds = readInt(env, 'THROTTLE_TTL_SECONDS', 60, 1);
  c.webhookAllowInsecure = readBool(env, 'WEBHOOK_ALLOW_INSECURE', false);
  c.webhookAllowedPorts = readPorts(env, 'WEBHOOK_ALLOWED_PORTS', [443]);
  c.attachmentMaxBytes = readInt(env, 'ATTACHMENT_MAX_BYTES', 10 * 1024 * 1024, 1, 100 * 1024 * 1024);
  c.webhookRetryBaseMs = readInt(env, 'WEBHOOK_RETRY_BASE_MS', 5000, 1);
  c.bodyLimitBytes = readInt(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024);
  c.logLevel = env.LOG_LEVEL || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(c.logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent`);
  }
  c.demoAccount = readBool(env, 'DEMO_ACCOUNT', true);
  c.demoKeyFile = c.database.type === 'sqlite' && c.database.path !== ':memory:' ? join(dirname(c.database.path), 'demo-api-key.txt') : null;
  c.defaultRegion = (env.DEFAULT_REGION || 'SA').toUpperCase();
  if (!/^[A-Z]{2}$/.test(c.defaultRegion)) throw new ConfigError('DEFAULT_REGION must be a two-letter country code');
  c.currency = (env.CURRENCY || 'SAR').toUpperCase();
  c.prices = {
    local_sms: readInt(env, 'PRICE_LOCAL_SMS', 5, 0),
    chatapp: readInt(env, 'PRICE_CHATAPP', 10, 0),
    chatapp_web: readInt(env, 'PRICE_CHATAPP_WEB', 3, 0),
    messaging_bot: readInt(env, 'PRICE_MESSAGING_BOT', 2, 0),
    email: readInt(env, 'PRICE_EMAIL', 1, 0),
  };
  c.providers = {
    local_sms: env.PROVIDER_LOCAL_SMS || 'sandbox',
    chatapp: env.PROVIDER_CHATAPP || 'sandbox',
    chatapp_web: env.PROVIDER_CHATAPP_WEB || 'sandbox',
    messaging_bot: env.PROVIDER_MESSAGING_BOT || 'sandbox',
    email: env.PROVIDER_EMAIL || 'sandbox',
  };
  c.providerTimeoutMs = readInt(env, 'PROVIDER_TIMEOUT_MS', 10000, 1);
  c.idempotencyWindowHours = readInt(env, 'IDEMPOTENCY_WINDOW_HOURS', 24, 1);
  // Capped at 16 MiB: one element is parsed in one synchronous step, which must stay short.
  c.bulkMaxElementBytes = readInt(env, 'BULK_MAX_ELEMENT_BYTES', 65536, 1024, 16 * 1024 * 1024);
  c.bulkLeaseMs = readInt(env, 'BULK_LEASE_MS', 15_000, 100);
  c.bulkDispatchLeaseMs = Math.max(c.bulkLeaseMs, 2 * c.providerTimeoutMs);
  // Half a lease (at least 2 s, so a busy event loop does not lose its transactions): a frozen
  // lease holder's locks are gone before its lease is, and the next replica takes over on time.
  const leaseS = Math.floor(c.bulkDispatchLeaseMs / 1000);
  c.dbIdleTransactionTimeoutS = readInt(env, 'DB_IDLE_TRANSACTION_TIMEOUT_S', Math.max(2, Math.floor(leaseS / 2)), 1, 3600);
  c.dbLockWaitTimeoutS = readInt(env, 'DB_LOCK_WAIT_TIMEOUT_S', 5, 1, 3600);
  c.bulkTestHooks = readBool(env, 'BULK_TEST_HOOKS', false);
  if (c.bulkTestHooks && c.nodeEnv !== 'test') throw new ConfigError('BULK_TEST_HOOKS is only allowed when NODE_ENV=test');
  c.schedulersEnabled = readBool(env, 'SCHEDULERS_ENABLED', true);
  // Below Kubernetes' default terminationGracePeriodSeconds (30 s), with room to close the pools.
  c.shutdownGraceMs = readInt(env, 'SHUTDOWN_GRACE_MS', 25_000, 0, 600_000);
  c.wahaEventMaxAgeSeconds = readInt(env, 'WAHA_EVENT_MAX_AGE_SECONDS', 300, 1);
  c.docsEnabled = readBool(env, 'DOCS_ENABLED', !c.isProduction);
  c.publicThrottleLimit = readInt(env, 'PUBLIC_THROTTLE_LIMIT', 1200, 1);
  c.publicThrottleTtlSeconds = readInt(env, 'PUBLIC_THROTTLE_TTL_SECONDS', 60, 1);
  c.metricsEnabled = readBool(env, 'METRICS_ENABLED', true);
  c.metricsToken = env.METRICS_TOKEN || null;
  if (c.metricsToken !== null && c.metricsToken.length < 16) throw new ConfigError('METRICS_TOKEN must be at least 16 characters');
  c.metricsRefreshMs = readInt(env, 'METRICS_REFRESH_MS', 15_000, 10, 3_600_000);
  return c;
}
