import { ConfigError, loadConfig, parseDatabaseUrl } from './app-config';

describe('loadConfig', () => {
  it('has working defaults: embedded SQLite, port 3000, sandbox providers', () => {
    const c = loadConfig({});
    expect(c.port).toBe(3000);
    expect(c.database).toEqual({ type: 'sqlite', path: 'data/messaging.sqlite' });
    expect(c.adminToken).toBeNull();
    expect(c.webhookAllowInsecure).toBe(false);
    expect(Object.values(c.providers).every((p) => p === 'sandbox')).toBe(true);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ THROTTLE_LIMIT: '0' }, 'THROTTLE_LIMIT'],
    [{ THROTTLE_TTL_SECONDS: '1.5' }, 'THROTTLE_TTL_SECONDS'],
    [{ WEBHOOK_ALLOW_INSECURE: 'maybe' }, 'WEBHOOK_ALLOW_INSECURE'],
    [{ DATABASE_URL: 'postgres://x/y' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'mysql://root@localhost:3306/' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'localhost:6379' }, 'REDIS_URL'],
    [{ NODE_ENV: 'production' }, 'APP_SECRET'],
    [{ ADMIN_TOKEN: 'short' }, 'ADMIN_TOKEN'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ DB_LOCK_WAIT_TIMEOUT_S: '0' }, 'DB_LOCK_WAIT_TIMEOUT_S'],
    [{ DB_IDLE_TRANSACTION_TIMEOUT_S: 'soon' }, 'DB_IDLE_TRANSACTION_TIMEOUT_S'],
    [{ BULK_TEST_HOOKS: 'true', NODE_ENV: 'development' }, 'BULK_TEST_HOOKS'],
  ])('a bad value stops start-up naming the variable: %j', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });

  it('parses a MySQL URL with credentials', () => {
    expect(parseDatabaseUrl('mysql://u%40x:p%3Aw@db.example:3307/msg')).toEqual({
      type: 'mysql', host: 'db.example', port: 3307, username: 'u@x', password: 'p:w', database: 'msg',
    });
  });

  it('reads booleans and per-channel prices', () => {
    const c = loadConfig({ WEBHOOK_ALLOW_INSECURE: 'true', PRICE_EMAIL: '7', PROVIDER_EMAIL: 'smtp' });
    expect(c.webhookAllowInsecure).toBe(true);
    expect(c.prices.email).toBe(7);
    expect(c.providers.email).toBe('smtp');
  });

  it('bounds database lock waits and idle transactions: by default half the bulk dispatch lease (at least 2 s), 5 s waits', () => {
    // Dispatch lease = max(BULK_LEASE_MS 15 s, 2 x PROVIDER_TIMEOUT_MS 10 s) = 20 s.
    expect(loadConfig({})).toMatchObject({ bulkDispatchLeaseMs: 20_000, dbIdleTransactionTimeoutS: 10, dbLockWaitTimeoutS: 5 });
    expect(loadConfig({ BULK_LEASE_MS: '6000', PROVIDER_TIMEOUT_MS: '1000' })).toMatchObject({ bulkDispatchLeaseMs: 6000, dbIdleTransactionTimeoutS: 3 });
    expect(loadConfig({ BULK_LEASE_MS: '1500', PROVIDER_TIMEOUT_MS: '500' }).dbIdleTransactionTimeoutS).toBe(2);
    expect(loadConfig({ DB_IDLE_TRANSACTION_TIMEOUT_S: '4', DB_LOCK_WAIT_TIMEOUT_S: '2' })).toMatchObject({ dbIdleTransactionTimeoutS: 4, dbLockWaitTimeoutS: 2 });
  });
});
