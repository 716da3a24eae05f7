import { loadConfig } from './app-config';

// Every default, as README.md and docs/api-guide.md document them. Changing one is a user-visible change.
describe('config sections: defaults', () => {
  const c = loadConfig({});

  it('server, logging, docs, shutdown, schedulers, demo', () => {
    expect([c.nodeEnv, c.isProduction]).toEqual(['development', false]);
    expect(c.server).toEqual({
      port: 3000,
      host: '0.0.0.0',
      publicBaseUrl: 'http://localhost:3000',
      bodyLimitBytes: 1048576,
      trustProxy: null,
    });
    expect(c.logging).toEqual({ level: 'info' });
    expect(c.docs).toEqual({ enabled: true });
    expect(c.shutdown).toEqual({ graceMs: 25_000 });
    expect(c.schedulers).toEqual({ enabled: true });
    expect(c.demo).toEqual({ enabled: true, keyFile: 'data/demo-api-key.txt' });
  });

  it('database and redis', () => {
    expect(c.database).toEqual({
      type: 'sqlite',
      path: 'data/messaging.sqlite',
      url: 'sqlite:data/messaging.sqlite',
      create: false,
      poolSize: 20,
      connectRetries: 0,
      idleTransactionTimeoutS: 10,
      lockWaitTimeoutS: 5,
    });
    expect(c.redis).toEqual({ url: null, keyPrefix: 'msgsvc:' });
  });

  it('security, throttling, outbound targets, metrics', () => {
    expect(c.security).toEqual({
      appSecret: 'development-only-secret-do-not-use',
      adminToken: null,
      apiKeyCacheMs: 500,
    });
    expect(c.throttle).toEqual({ limit: 1200, ttlSeconds: 60, publicLimit: 1200, publicTtlSeconds: 60 });
    expect(c.outbound).toEqual({ allowInsecure: false, allowedPorts: [443], attachmentMaxBytes: 10485760 });
    expect(c.metrics).toEqual({ enabled: true, token: null, refreshMs: 15_000 });
  });

  it('billing, messaging, providers', () => {
    expect(c.billing).toEqual({
      currency: 'SAR',
      prices: { local_sms: 5, chatapp: 10, chatapp_web: 3, messaging_bot: 2, email: 1 },
    });
    expect(c.messaging).toEqual({
      defaultRegion: 'SA',
      defaultSmsSender: 'MsgService',
      receiptMatchWindowMs: 600_000,
      receiptSweepTickMs: 5000,
    });
    expect(c.providers).toEqual({
      byChannel: {
        local_sms: 'sandbox',
        chatapp: 'sandbox',
        chatapp_web: 'sandbox',
        messaging_bot: 'sandbox',
        email: 'sandbox',
      },
      timeoutMs: 10_000,
    });
    expect(c.sandbox).toEqual({
      faultRefreshMs: 200,
      deliveredAfterMs: 1000,
      readAfterMs: 3000,
      receiptTickMs: 250,
      receiptBatch: 500,
    });
    expect(c.waha).toEqual({ baseUrl: null, apiKey: null, timeoutMs: 10_000, eventMaxAgeSeconds: 300 });
    expect(c.webSessions).toEqual({ defaultProvider: 'sandbox' });
  });

  it('templates, media, official chat-app platform', () => {
    expect(c.templates).toEqual({ statusPollMs: 300_000, statusPollBatch: 20 });
    expect(c.media).toEqual({
      dir: 'data/media',
      quotaBytes: 524288000,
      fetchTimeoutMs: 15_000,
      orphanMs: 24 * 3_600_000,
      purgeTickMs: 3_600_000,
    });
    expect(c.chatapp).toEqual({
      platformNumber: '+966500000001',
      platformDisplayName: 'Platform number',
      wabaId: null,
      webhookSecret: null,
      appSecret: null,
      verifyToken: null,
    });
  });

  it('scheduled sends, bulk, verification, fraud, webhooks', () => {
    expect(c.scheduledSends).toEqual({ tickMs: 1000, batch: 50, leaseMs: 10_000 + 30_000 });
    expect(c.bulk).toEqual({
      instanceId: null,
      intakeBatch: 1000,
      maxElementBytes: 65536,
      intakeLeaseMs: 60_000,
      reaperTickMs: 30_000,
      validationTickMs: 200,
      validationChunk: 2000,
      validationConcurrency: 8,
      exportPageRows: 2000,
      dispatchTickMs: 100,
      leaseMs: 15_000,
      dispatchLeaseMs: 20_000,
      rateLimitBackoffMs: 30_000,
      sendLanes: 10,
      maxJobsPerReplica: 2000,
      idempotencyWindowMs: 24 * 3_600_000,
      eventsHeartbeatMs: 15_000,
      eventsMaxPerAccount: 20,
      testHooks: false,
    });
    expect(c.consent).toEqual({ importMaxRows: 100_000 });
    expect(c.verification).toEqual({
      maxChecks: 5,
      retentionMs: 24 * 3_600_000,
      purgeTickMs: 3_600_000,
      sendLimit: 5,
      sendWindowMs: 600_000,
    });
    expect(c.fraud).toEqual({
      defaultAllowedCountries: ['SA'],
      guardEnabled: true,
      prefixDigits: 4,
      windowMs: 3_600_000,
      minSends: 20,
      minConversionPermille: 100,
      newNumbersPerMinute: 30,
      platformAccounts: 3,
      sweepTickMs: 60_000,
    });
    expect(c.webhooks).toEqual({
      deliveryIntervalMs: 500,
      timeoutMs: 10_000,
      leaseMs: 40_000,
      batch: 100,
      retryBaseMs: 5000,
      retentionMs: 30 * 86_400_000,
      pruneIntervalMs: 300_000,
      endpointRetryScheduleMs: [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      disableAfterFailures: 50,
    });
  });
});

describe('config sections: values and ranges', () => {
  it('derives what depends on another setting from the value given', () => {
    const c = loadConfig({
      PORT: '8080',
      PROVIDER_TIMEOUT_MS: '2000',
      WEBHOOK_TIMEOUT_MS: '500',
      SCHEDULED_SEND_LEASE_MS: '100',
    });
    expect(c.server.publicBaseUrl).toBe('http://localhost:8080');
    expect(c.waha.timeoutMs).toBe(2000);
    expect(c.webhooks.leaseMs).toBe(30_500);
    expect(c.scheduledSends.leaseMs).toBe(2100);
    expect(loadConfig({ SMTP_SECURE: 'true' }).smtp).toBeNull();
  });

  it('reads units as documented and trims what links are built from', () => {
    const c = loadConfig({
      PUBLIC_BASE_URL: 'https://api.example/',
      VERIFICATION_SEND_WINDOW_SECONDS: '60',
      WEBHOOK_RETENTION_DAYS: '2',
      MEDIA_ORPHAN_HOURS: '3',
      BULK_INSTANCE_ID: 'r'.repeat(50),
      DEFAULT_REGION: 'ae',
      CURRENCY: 'usd',
      WEBHOOK_ALLOWED_PORTS: '443, 8443',
      TRUST_PROXY: ' 1 ',
    });
    expect(c.server).toMatchObject({ publicBaseUrl: 'https://api.example', trustProxy: 1 });
    expect([c.verification.sendWindowMs, c.webhooks.retentionMs, c.media.orphanMs]).toEqual([
      60_000,
      2 * 86_400_000,
      3 * 3_600_000,
    ]);
    expect(c.bulk.instanceId).toBe('r'.repeat(40));
    expect([c.messaging.defaultRegion, c.billing.currency, c.outbound.allowedPorts]).toEqual([
      'AE',
      'USD',
      [443, 8443],
    ]);
    expect(
      ['sa, ae,SA', '*', ' * '].map((v) => loadConfig({ DEFAULT_ALLOWED_COUNTRIES: v }).fraud.defaultAllowedCountries),
    ).toEqual([['AE', 'SA'], '*', '*']);
    expect(
      ['true', 'false', 'loopback, 10.0.0.0/8'].map((v) => loadConfig({ TRUST_PROXY: v }).server.trustProxy),
    ).toEqual([true, false, 'loopback, 10.0.0.0/8']);
  });

  it.each([
    ['BULK_EXPORT_PAGE_ROWS', '10001', 'BULK_EXPORT_PAGE_ROWS must be between 1 and 10000, got 10001'],
    ['SUPPRESSION_IMPORT_MAX_ROWS', '0', 'SUPPRESSION_IMPORT_MAX_ROWS must be between 1 and 1000000, got 0'],
    ['BULK_EVENTS_HEARTBEAT_MS', '9', 'BULK_EVENTS_HEARTBEAT_MS must be between 10 and 300000, got 9'],
    ['BULK_MAX_ELEMENT_BYTES', '1023', 'BULK_MAX_ELEMENT_BYTES must be between 1024 and 16777216, got 1023'],
    ['MEDIA_FETCH_TIMEOUT_MS', '99', 'MEDIA_FETCH_TIMEOUT_MS must be between 100 and 600000, got 99'],
    ['SCHEDULED_SEND_TICK_MS', 'often', 'SCHEDULED_SEND_TICK_MS must be an integer, got "often"'],
    ['VERIFICATION_MAX_CHECKS', '101', 'VERIFICATION_MAX_CHECKS must be between 1 and 100, got 101'],
    ['WEBHOOK_LEASE_MS', '10999', 'WEBHOOK_LEASE_MS must be between 11000 and 9007199254740991, got 10999'],
    ['DB_POOL_SIZE', '0', 'DB_POOL_SIZE must be between 1 and 500, got 0'],
    ['DB_CONNECT_RETRIES', '101', 'DB_CONNECT_RETRIES must be between 0 and 100, got 101'],
    ['SANDBOX_FAULT_REFRESH_MS', '60001', 'SANDBOX_FAULT_REFRESH_MS must be between 0 and 60000, got 60001'],
    ['WAHA_TIMEOUT_MS', '120001', 'WAHA_TIMEOUT_MS must be between 1 and 120000, got 120001'],
    [
      'WEBHOOK_ENDPOINT_RETRY_SCHEDULE_MS',
      '0,5s',
      'WEBHOOK_ENDPOINT_RETRY_SCHEDULE_MS must be 1 to 20 comma-separated waits in ms (each at most 604800000), got "0,5s"',
    ],
    [
      'WEBHOOK_ALLOWED_PORTS',
      '443,0',
      'WEBHOOK_ALLOWED_PORTS must be a comma-separated list of ports (1-65535), got "443,0"',
    ],
    ['DEFAULT_REGION', 'SAU', 'DEFAULT_REGION must be a two-letter country code'],
    [
      'DEFAULT_ALLOWED_COUNTRIES',
      'SA,XX',
      'DEFAULT_ALLOWED_COUNTRIES must be "*" or comma-separated two-letter ISO 3166-1 country codes (e.g. SA,AE), got "SA,XX"',
    ],
    [
      'DEFAULT_ALLOWED_COUNTRIES',
      'SA,*',
      'DEFAULT_ALLOWED_COUNTRIES must be "*" or comma-separated two-letter ISO 3166-1 country codes (e.g. SA,AE), got "SA,*"',
    ],
    ['FRAUD_MIN_CONVERSION_PERCENT', '101', 'FRAUD_MIN_CONVERSION_PERCENT must be between 0 and 100, got 101'],
    ['FRAUD_WINDOW_SECONDS', '30', 'FRAUD_WINDOW_SECONDS must be between 60 and 604800, got 30'],
    ['FRAUD_GUARD_ENABLED', 'maybe', 'FRAUD_GUARD_ENABLED must be true or false, got "maybe"'],
    ['REDIS_KEY_PREFIX', 'has space', 'REDIS_KEY_PREFIX must be at most 100 letters, digits, _ : . or -'],
    ['CHATAPP_WEB_SESSION_PROVIDER', 'other', 'CHATAPP_WEB_SESSION_PROVIDER must be sandbox or waha, got "other"'],
    ['PROVIDER_EMAIL', 'sendgrid', 'PROVIDER_EMAIL must be sandbox or smtp, got "sendgrid"'],
    ['PROVIDER_LOCAL_SMS', 'smtp', 'PROVIDER_LOCAL_SMS must be sandbox or smpp, got "smtp"'],
  ])('%s=%j stops start-up: %s', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });
});
