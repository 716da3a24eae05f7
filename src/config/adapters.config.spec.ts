import { ConfigError, type Env, loadConfig } from './app-config';

const SMTP = { PROVIDER_EMAIL: 'smtp', SMTP_HOST: 'mail.example', SMTP_FROM: 'Shop <no-reply@shop.example>' };
const SMPP = {
  PROVIDER_LOCAL_SMS: 'smpp',
  SMPP_URL: 'smpp://smsc.example:2775',
  SMPP_SYSTEM_ID: 'esme',
  SMPP_PASSWORD: 'pw',
};
const CLOUD = {
  PROVIDER_CHATAPP: 'cloud_api',
  CHATAPP_CLOUD_TOKEN: 'tok',
  CHATAPP_CLOUD_PHONE_NUMBER_ID: 'pn_1',
  CHATAPP_CLOUD_WABA_ID: 'waba_1',
  CHATAPP_CLOUD_APP_ID: 'app_1',
};
const BOT = { PROVIDER_MESSAGING_BOT: 'bot_api', BOT_API_TOKEN: '42:abc' };

function problems(env: Env): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.message.split('; ');
    throw err;
  }
  return [];
}

describe('adapter sections', () => {
  it('are null, and their settings unread, while their adapter is not selected', () => {
    const c = loadConfig({
      SMTP_PORT: 'not a port',
      SMPP_URL: 'nope',
      BOT_API_BASE_URL: 'nope',
      CHATAPP_CLOUD_API_VERSION: '21',
    });
    expect([c.smtp, c.smpp, c.cloudApi, c.botApi]).toEqual([null, null, null, null]);
  });

  it('smtp: defaults, auth and the Message-ID domain', () => {
    expect(loadConfig(SMTP).smtp).toEqual({
      host: 'mail.example',
      port: 587,
      secure: false,
      auth: null,
      from: 'Shop <no-reply@shop.example>',
      fromDomain: 'shop.example',
      maxConnections: 5,
      requireTls: false,
      ignoreTls: false,
    });
    expect(
      loadConfig({ ...SMTP, SMTP_SECURE: 'yes', SMTP_USER: 'u', SMTP_PASS: 'p', SMTP_FROM: 'a@b.example' }).smtp,
    ).toMatchObject({
      port: 465,
      secure: true,
      auth: { user: 'u', pass: 'p' },
      fromDomain: 'b.example',
    });
  });

  it('smpp, cloud_api, bot_api: defaults, URLs without trailing slashes', () => {
    expect(loadConfig({ ...SMPP, SMPP_URL: 'ssmpp://smsc.example:3550/' }).smpp).toEqual({
      receiptIdFormat: 'as_submitted',
      url: 'ssmpp://smsc.example:3550',
      systemId: 'esme',
      password: 'pw',
      systemType: '',
      enquireLinkMs: 30_000,
      reconnectMaxMs: 30_000,
      window: 10,
      longMessage: 'udh',
      gsm7Packing: false,
    });
    expect(loadConfig(CLOUD).cloudApi).toEqual({
      baseUrl: 'https://graph.facebook.com',
      apiVersion: 'v21.0',
      token: 'tok',
      phoneNumberId: 'pn_1',
      wabaId: 'waba_1',
      appId: 'app_1',
    });
    expect(loadConfig(BOT).botApi).toEqual({ baseUrl: 'https://api.telegram.org', token: '42:abc' });
    expect(loadConfig({ ...BOT, BOT_API_BASE_URL: 'http://127.0.0.1:8081//' }).botApi?.baseUrl).toBe(
      'http://127.0.0.1:8081',
    );
  });

  it.each([
    [
      'smtp',
      { PROVIDER_EMAIL: 'smtp' },
      ['SMTP_HOST is required when PROVIDER_EMAIL=smtp', 'SMTP_FROM is required when PROVIDER_EMAIL=smtp'],
    ],
    [
      'smpp',
      { PROVIDER_LOCAL_SMS: 'smpp' },
      ['SMPP_URL', 'SMPP_SYSTEM_ID', 'SMPP_PASSWORD'].map((n) => `${n} is required when PROVIDER_LOCAL_SMS=smpp`),
    ],
    [
      'cloud_api',
      { PROVIDER_CHATAPP: 'cloud_api' },
      ['CHATAPP_CLOUD_PHONE_NUMBER_ID', 'CHATAPP_CLOUD_APP_ID', 'CHATAPP_CLOUD_TOKEN', 'CHATAPP_CLOUD_WABA_ID'].map(
        (n) => `${n} is required when PROVIDER_CHATAPP=cloud_api`,
      ),
    ],
    [
      'bot_api',
      { PROVIDER_MESSAGING_BOT: 'bot_api' },
      ['BOT_API_TOKEN is required when PROVIDER_MESSAGING_BOT=bot_api'],
    ],
    ['waha (sends)', { PROVIDER_CHATAPP_WEB: 'waha' }, ['WAHA_BASE_URL is required when PROVIDER_CHATAPP_WEB=waha']],
    [
      'waha (new sessions)',
      { CHATAPP_WEB_SESSION_PROVIDER: 'waha' },
      ['WAHA_BASE_URL is required when CHATAPP_WEB_SESSION_PROVIDER=waha'],
    ],
  ])('%s selected without its required settings: start-up names each missing variable', (_name, env, expected) => {
    expect(problems(env)).toEqual(expected);
  });

  it.each([
    [{ ...SMTP, SMTP_USER: 'u' }, 'SMTP_USER and SMTP_PASS must be set together'],
    [{ ...SMTP, SMTP_FROM: 'Shop' }, 'SMTP_FROM must be an email address or "Name <address>", got "Shop"'],
    [{ ...SMTP, SMTP_PORT: '0' }, 'SMTP_PORT must be between 1 and 65535, got 0'],
    [{ ...SMTP, SMTP_REQUIRE_TLS: 'sure' }, 'SMTP_REQUIRE_TLS must be true or false, got "sure"'],
    [{ ...SMPP, SMPP_RECEIPT_ID_FORMAT: 'hex' }, 'SMPP_RECEIPT_ID_FORMAT must be as_submitted or decimal, got "hex"'],
    [{ ...SMPP, SMPP_URL: 'http://smsc.example' }, 'SMPP_URL must use smpp or ssmpp://, got "http://smsc.example"'],
    [{ ...SMPP, SMPP_WINDOW: '1001' }, 'SMPP_WINDOW must be between 1 and 1000, got 1001'],
    [{ ...SMPP, SMPP_LONG_MESSAGE: 'split' }, 'SMPP_LONG_MESSAGE must be udh or payload, got "split"'],
    [
      { ...CLOUD, CHATAPP_CLOUD_PHONE_NUMBER_ID: '../x' },
      'CHATAPP_CLOUD_PHONE_NUMBER_ID must be a phone number id (letters, digits, _ or -), got "../x"',
    ],
    [
      { ...CLOUD, CHATAPP_CLOUD_API_VERSION: '21.0' },
      'CHATAPP_CLOUD_API_VERSION must be a Graph API version like v21.0, got "21.0"',
    ],
    [{ ...CLOUD, CHATAPP_CLOUD_BASE_URL: 'graph' }, 'CHATAPP_CLOUD_BASE_URL is not a valid URL: "graph"'],
    [
      { ...BOT, BOT_API_BASE_URL: 'ftp://bots.example' },
      'BOT_API_BASE_URL must use http or https://, got "ftp://bots.example"',
    ],
    [{ WAHA_BASE_URL: 'waha.local:3000' }, 'WAHA_BASE_URL must start with http:// or https://'],
  ])('a bad setting of a selected adapter names the variable: %j', (env, message) => {
    expect(problems(env)).toEqual([message]);
  });

  it('waha: read whatever is selected (a session may name waha itself); the timeout follows PROVIDER_TIMEOUT_MS', () => {
    expect(
      loadConfig({ WAHA_BASE_URL: 'http://waha.local:3000/', WAHA_API_KEY: 'k', PROVIDER_TIMEOUT_MS: '1234' }).waha,
    ).toEqual({
      baseUrl: 'http://waha.local:3000',
      apiKey: 'k',
      timeoutMs: 1234,
      eventMaxAgeSeconds: 300,
    });
  });

  it('the platform business account and hook secret are read for every chatapp adapter', () => {
    expect(
      loadConfig({ CHATAPP_CLOUD_WABA_ID: 'waba_9', CHATAPP_CLOUD_WEBHOOK_SECRET: 's3cret' }).chatapp,
    ).toMatchObject({ wabaId: 'waba_9', webhookSecret: 's3cret' });
  });
});
