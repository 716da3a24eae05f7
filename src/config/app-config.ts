// The one place that reads the environment: `loadConfig` parses and checks every variable once, at
// boot, into typed sections. A bad value (or a missing setting of a selected adapter) stops start-up
// with a message naming the variable.
import {
  botApiSection,
  cloudApiSection,
  smppSection,
  smtpSection,
  wahaSection,
  webSessionsSection,
} from './adapters.config';
import type {
  BotApiConfig,
  CloudApiConfig,
  SmppConfig,
  SmtpConfig,
  WahaConfig,
  WebSessionsConfig,
} from './adapters.config';
import { bulkSection, type BulkConfig } from './bulk.config';
import { consentSection, type ConsentConfig } from './consent.config';
import { testModeSection, type TestModeConfig } from './test-mode.config';
import { databaseSection, redisSection, type DatabaseSection, type RedisConfig } from './database.config';
import { type Env, EnvReader } from './env-reader';
import { fraudSection, type FraudConfig } from './fraud.config';
import { auditSection, erasureSection, type AuditConfig, type ErasureConfig } from './privacy-records.config';
import { retentionSection, type RetentionConfig } from './retention.config';
import {
  billingSection,
  messagingSection,
  scheduledSendsSection,
  verificationSection,
  webhooksSection,
} from './messaging.config';
import type {
  BillingConfig,
  MessagingConfig,
  ScheduledSendsConfig,
  VerificationConfig,
  WebhooksConfig,
} from './messaging.config';
import { providersSection, sandboxSection, type ProvidersConfig, type SandboxConfig } from './providers.config';
import { runtimeMode } from './runtime-mode';
import { metricsSection, outboundSection, securitySection, throttleSection } from './security.config';
import type { MetricsConfig, OutboundConfig, SecurityConfig, ThrottleConfig } from './security.config';
import {
  demoSection,
  docsSection,
  loggingSection,
  schedulersSection,
  serverSection,
  shutdownSection,
} from './server.config';
import type {
  DemoConfig,
  DocsConfig,
  LoggingConfig,
  SchedulersConfig,
  ServerConfig,
  ShutdownConfig,
} from './server.config';
import {
  chatappSection,
  mediaSection,
  templatesSection,
  type ChatappConfig,
  type MediaConfig,
  type TemplatesConfig,
} from './templates.config';

export { ConfigError, type Env } from './env-reader';
export { parseDatabaseUrl, type DatabaseConfig } from './database.config';
export { CHANNELS, type ChannelName } from './providers.config';
export { type CountryAllowList, isCountryCode, parseCountryList } from './fraud.config';

type Sections = { readonly [K in keyof AppConfig]: AppConfig[K] };

/** The configuration, injectable (one instance per app). Sections are plain data, fixed at boot. */
export class AppConfig {
  readonly nodeEnv: string;
  /** Anything but NODE_ENV development or test. */
  readonly isProduction: boolean;
  readonly server: ServerConfig;
  readonly logging: LoggingConfig;
  readonly docs: DocsConfig;
  readonly shutdown: ShutdownConfig;
  readonly schedulers: SchedulersConfig;
  readonly demo: DemoConfig;
  readonly database: DatabaseSection;
  readonly redis: RedisConfig;
  readonly security: SecurityConfig;
  readonly throttle: ThrottleConfig;
  readonly outbound: OutboundConfig;
  readonly metrics: MetricsConfig;
  readonly billing: BillingConfig;
  readonly messaging: MessagingConfig;
  readonly providers: ProvidersConfig;
  readonly sandbox: SandboxConfig;
  /** Null unless PROVIDER_EMAIL=smtp. */
  readonly smtp: SmtpConfig | null;
  /** Null unless PROVIDER_LOCAL_SMS=smpp. */
  readonly smpp: SmppConfig | null;
  /** Null unless PROVIDER_CHATAPP=cloud_api. */
  readonly cloudApi: CloudApiConfig | null;
  /** Null unless PROVIDER_MESSAGING_BOT=bot_api. */
  readonly botApi: BotApiConfig | null;
  readonly waha: WahaConfig;
  readonly webSessions: WebSessionsConfig;
  readonly chatapp: ChatappConfig;
  readonly templates: TemplatesConfig;
  readonly media: MediaConfig;
  readonly scheduledSends: ScheduledSendsConfig;
  readonly bulk: BulkConfig;
  readonly consent: ConsentConfig;
  readonly testMode: TestModeConfig;
  readonly verification: VerificationConfig;
  readonly fraud: FraudConfig;
  readonly webhooks: WebhooksConfig;
  readonly erasure: ErasureConfig;
  readonly audit: AuditConfig;
  readonly retention: RetentionConfig;

  constructor(s: Sections) {
    this.nodeEnv = s.nodeEnv;
    this.isProduction = s.isProduction;
    this.server = s.server;
    this.logging = s.logging;
    this.docs = s.docs;
    this.shutdown = s.shutdown;
    this.schedulers = s.schedulers;
    this.demo = s.demo;
    this.database = s.database;
    this.redis = s.redis;
    this.security = s.security;
    this.throttle = s.throttle;
    this.outbound = s.outbound;
    this.metrics = s.metrics;
    this.billing = s.billing;
    this.messaging = s.messaging;
    this.providers = s.providers;
    this.sandbox = s.sandbox;
    this.smtp = s.smtp;
    this.smpp = s.smpp;
    this.cloudApi = s.cloudApi;
    this.botApi = s.botApi;
    this.waha = s.waha;
    this.webSessions = s.webSessions;
    this.chatapp = s.chatapp;
    this.templates = s.templates;
    this.media = s.media;
    this.scheduledSends = s.scheduledSends;
    this.bulk = s.bulk;
    this.consent = s.consent;
    this.testMode = s.testMode;
    this.verification = s.verification;
    this.fraud = s.fraud;
    this.webhooks = s.webhooks;
    this.erasure = s.erasure;
    this.audit = s.audit;
    this.retention = s.retention;
  }
}

/** Reads every section from `env`; throws one ConfigError naming every bad or missing variable. */
export function loadConfig(env: Env): AppConfig {
  const r = new EnvReader(env);
  const mode = runtimeMode(r);
  const providers = providersSection(r);
  const bulk = bulkSection(r, mode, providers.timeoutMs);
  const database = databaseSection(r, mode, bulk.dispatchLeaseMs);
  const webSessions = webSessionsSection(r);
  const config = new AppConfig({
    ...mode,
    server: serverSection(r),
    logging: loggingSection(r),
    docs: docsSection(r, mode),
    shutdown: shutdownSection(r),
    schedulers: schedulersSection(r),
    demo: demoSection(r, database),
    database,
    redis: redisSection(r),
    security: securitySection(r, mode),
    throttle: throttleSection(r),
    outbound: outboundSection(r),
    metrics: metricsSection(r),
    billing: billingSection(r),
    messaging: messagingSection(r),
    providers,
    sandbox: sandboxSection(r),
    smtp: smtpSection(r, providers),
    smpp: smppSection(r, providers),
    cloudApi: cloudApiSection(r, providers),
    botApi: botApiSection(r, providers),
    waha: wahaSection(r, providers, webSessions),
    webSessions,
    chatapp: chatappSection(r),
    templates: templatesSection(r),
    media: mediaSection(r),
    scheduledSends: scheduledSendsSection(r, providers.timeoutMs),
    bulk,
    consent: consentSection(r),
    testMode: testModeSection(r),
    verification: verificationSection(r),
    fraud: fraudSection(r),
    webhooks: webhooksSection(r),
    erasure: erasureSection(r),
    audit: auditSection(r),
    retention: retentionSection(r),
  });
  r.throwIfFailed();
  return config;
}
