import { ConfigError, loadConfig, parseDatabaseUrl } from './app-config';

describe('loadConfig', () => {
  it('has working defaults: embedded SQLite, port 3000, sandbox providers', () => {
    const c = loadConfig({});
    expect(c.server.port).toBe(3000);
    expect(c.database).toMatchObject({
      type: 'sqlite',
      path: 'data/messaging.sqlite',
      url: 'sqlite:data/messaging.sqlite',
    });
    expect(c.security.adminToken).toBeNull();
    expect(c.outbound.allowInsecure).toBe(false);
    expect(Object.values(c.providers.byChannel).every((p) => p === 'sandbox')).toBe(true);
    expect([c.smtp, c.smpp, c.cloudApi, c.botApi]).toEqual([null, null, null, null]);
    expect(c.metrics).toEqual({ enabled: true, token: null, refreshMs: 15_000 });
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
    [{ METRICS_ENABLED: 'perhaps' }, 'METRICS_ENABLED'],
    [{ METRICS_TOKEN: 'short' }, 'METRICS_TOKEN'],
    [{ METRICS_REFRESH_MS: '0' }, 'METRICS_REFRESH_MS'],
    [{ SHUTDOWN_GRACE_MS: '-1' }, 'SHUTDOWN_GRACE_MS'],
  ])('a bad value stops start-up naming the variable: %j', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });

  it('reports every bad variable at once, in one ConfigError', () => {
    const env = { PORT: 'abc', LOG_LEVEL: 'loud', PROVIDER_EMAIL: 'smtp', SMTP_HOST: 'mail.example' };
    expect(() => loadConfig(env)).toThrow(
      new ConfigError(
        [
          'PORT must be an integer, got "abc"',
          'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
          'SMTP_FROM is required when PROVIDER_EMAIL=smtp',
        ].join('; '),
      ),
    );
  });

  describe('production mode', () => {
    const secret = 'a-real-random-secret-0123456789';

    it.each(['prod', 'staging', 'PRODUCTION', 'Production', '', ' development', 'production'])(
      'NODE_ENV=%j is production: APP_SECRET is required and the development secret is never used',
      (nodeEnv) => {
        expect(() => loadConfig({ NODE_ENV: nodeEnv })).toThrow(/APP_SECRET is required in production/);
        const c = loadConfig({ NODE_ENV: nodeEnv, APP_SECRET: secret });
        expect(c.isProduction).toBe(true);
        expect(c.security.appSecret).toBe(secret);
      },
    );

    it.each(['development', 'test', undefined])(
      'NODE_ENV=%j is not production (the development secret fills in)',
      (nodeEnv) => {
        const c = loadConfig(nodeEnv === undefined ? {} : { NODE_ENV: nodeEnv });
        expect(c.isProduction).toBe(false);
        expect(c.security.appSecret).toBe('development-only-secret-do-not-use');
      },
    );

    it.each([
      [{ APP_SECRET: 'development-only-secret-do-not-use' }, 'APP_SECRET'],
      [{ APP_SECRET: 'change-me-to-a-long-random-secret' }, 'APP_SECRET'],
      [{ APP_SECRET: secret, ADMIN_TOKEN: 'change-me-admin-token' }, 'ADMIN_TOKEN'],
    ])('refuses published example secrets in production: %j', (env, name) => {
      expect(() => loadConfig({ NODE_ENV: 'prod', ...env })).toThrow(
        new RegExp(`${name} is a published example value`),
      );
      expect(() => loadConfig({ NODE_ENV: 'development', ...env })).not.toThrow();
    });

    it('production defaults: docs off, the first database connection retried', () => {
      const c = loadConfig({ NODE_ENV: 'production', APP_SECRET: secret });
      expect([c.docs.enabled, c.database.connectRetries]).toEqual([false, 10]);
      expect([loadConfig({}).docs.enabled, loadConfig({}).database.connectRetries]).toEqual([true, 0]);
    });
  });

  it('parses a MySQL URL with credentials', () => {
    expect(parseDatabaseUrl('mysql://u%40x:p%3Aw@db.example:3307/msg')).toEqual({
      type: 'mysql',
      host: 'db.example',
      port: 3307,
      username: 'u@x',
      password: 'p:w',
      database: 'msg',
    });
  });

  it('reads booleans and per-channel prices', () => {
    const c = loadConfig({
      WEBHOOK_ALLOW_INSECURE: 'true',
      PRICE_EMAIL: '7',
      PROVIDER_EMAIL: 'smtp',
      SMTP_HOST: 'mail.example',
      SMTP_FROM: 'a@b.example',
    });
    expect(c.outbound.allowInsecure).toBe(true);
    expect(c.billing.prices.email).toBe(7);
    expect(c.providers.byChannel.email).toBe('smtp');
  });

  it('bounds database lock waits and idle transactions: by default half the bulk dispatch lease (at least 2 s), 5 s waits', () => {
    // Dispatch lease = max(BULK_LEASE_MS 15 s, 2 x PROVIDER_TIMEOUT_MS 10 s) = 20 s.
    expect(loadConfig({}).bulk.dispatchLeaseMs).toBe(20_000);
    expect(loadConfig({}).database).toMatchObject({ idleTransactionTimeoutS: 10, lockWaitTimeoutS: 5 });
    const short = loadConfig({ BULK_LEASE_MS: '6000', PROVIDER_TIMEOUT_MS: '1000' });
    expect([short.bulk.dispatchLeaseMs, short.database.idleTransactionTimeoutS]).toEqual([6000, 3]);
    expect(loadConfig({ BULK_LEASE_MS: '1500', PROVIDER_TIMEOUT_MS: '500' }).database.idleTransactionTimeoutS).toBe(2);
    expect(loadConfig({ DB_IDLE_TRANSACTION_TIMEOUT_S: '4', DB_LOCK_WAIT_TIMEOUT_S: '2' }).database).toMatchObject({
      idleTransactionTimeoutS: 4,
      lockWaitTimeoutS: 2,
    });
  });
});
