import type { EnvReader } from './env-reader';
import type { RuntimeMode } from './runtime-mode';

const DEVELOPMENT_SECRET = 'development-only-secret-do-not-use';
/** Published values (this repository, earlier docker-compose.yml): never accepted in production. */
const KNOWN_SECRETS: readonly string[] = [
  DEVELOPMENT_SECRET,
  'change-me-to-a-long-random-secret',
  'change-me-admin-token',
];

export interface SecurityConfig {
  /** Key material for sealed secrets, cursors and code hashes (the development value outside production). */
  appSecret: string;
  /** Bearer token of the operator API; null: the admin API is disabled. */
  adminToken: string | null;
  /**
   * How long a replica may answer an API key's lookup (key active, its account row) from memory.
   * Changes made on this replica are seen at once; other replicas' changes within this bound. 0: never.
   */
  apiKeyCacheMs: number;
}

export interface ThrottleConfig {
  /** Requests per API key (per IP when unauthenticated) per window. */
  limit: number;
  ttlSeconds: number;
  /** Per-client-IP budget of admin, provider-hook and media-preview routes, per window. */
  publicLimit: number;
  publicTtlSeconds: number;
}

/** Rules for URLs the server fetches or calls (webhooks, attachments, media). */
export interface OutboundConfig {
  /** WEBHOOK_ALLOW_INSECURE: http://, any port, loopback and private addresses allowed. */
  allowInsecure: boolean;
  /** Ports a fetched/called URL may use when insecure targets are not allowed. */
  allowedPorts: number[];
  /** Largest attachment our server downloads for an adapter that needs the bytes (SMTP). */
  attachmentMaxBytes: number;
}

export interface MetricsConfig {
  /** Serve GET /metrics (Prometheus text format); off: it answers 404 like an unknown route. */
  enabled: boolean;
  /** When set, GET /metrics needs `Authorization: Bearer <token>`. */
  token: string | null;
  /** How often the gauges read from tables (jobs, outbox) are refreshed. */
  refreshMs: number;
}

export function securitySection(r: EnvReader, mode: RuntimeMode): SecurityConfig {
  const adminToken = r.optional('ADMIN_TOKEN');
  if (adminToken !== null && adminToken.length < 16) r.fail('ADMIN_TOKEN must be at least 16 characters');
  if (mode.isProduction && adminToken !== null && KNOWN_SECRETS.includes(adminToken))
    r.fail('ADMIN_TOKEN is a published example value; set a random one in production');
  const secret = r.optional('APP_SECRET');
  if (!secret && mode.isProduction)
    r.fail(
      `APP_SECRET is required in production (NODE_ENV="${mode.nodeEnv}"; only development and test are not production)`,
    );
  if (secret && secret.length < 16) r.fail('APP_SECRET must be at least 16 characters');
  if (secret && mode.isProduction && KNOWN_SECRETS.includes(secret))
    r.fail('APP_SECRET is a published example value; set a random one in production');
  return {
    appSecret: secret ?? DEVELOPMENT_SECRET,
    adminToken,
    apiKeyCacheMs: r.int('API_KEY_CACHE_MS', 500, 0, 2000),
  };
}

export function throttleSection(r: EnvReader): ThrottleConfig {
  return {
    limit: r.int('THROTTLE_LIMIT', 1200, 1),
    ttlSeconds: r.int('THROTTLE_TTL_SECONDS', 60, 1),
    publicLimit: r.int('PUBLIC_THROTTLE_LIMIT', 1200, 1),
    publicTtlSeconds: r.int('PUBLIC_THROTTLE_TTL_SECONDS', 60, 1),
  };
}

export function outboundSection(r: EnvReader): OutboundConfig {
  return {
    allowInsecure: r.bool('WEBHOOK_ALLOW_INSECURE', false),
    allowedPorts: r.ports('WEBHOOK_ALLOWED_PORTS', [443]),
    attachmentMaxBytes: r.int('ATTACHMENT_MAX_BYTES', 10 * 1024 * 1024, 1, 100 * 1024 * 1024),
  };
}

export function metricsSection(r: EnvReader): MetricsConfig {
  const token = r.optional('METRICS_TOKEN');
  if (token !== null && token.length < 16) r.fail('METRICS_TOKEN must be at least 16 characters');
  return {
    enabled: r.bool('METRICS_ENABLED', true),
    token,
    refreshMs: r.int('METRICS_REFRESH_MS', 15_000, 10, 3_600_000),
  };
}
