import { dirname, join } from 'node:path';
import type { DatabaseConfig } from './database.config';
import type { EnvReader } from './env-reader';
import type { RuntimeMode } from './runtime-mode';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export interface ServerConfig {
  port: number;
  host: string;
  /** Base of links the service hands out, without a trailing slash. */
  publicBaseUrl: string;
  bodyLimitBytes: number;
  /** Express `trust proxy` (TRUST_PROXY); null: not set. */
  trustProxy: boolean | number | string | null;
}

export interface LoggingConfig {
  level: (typeof LOG_LEVELS)[number];
}

export interface DocsConfig {
  /** Serve the OpenAPI UI and JSON at /docs and /docs-json (default: on outside production). */
  enabled: boolean;
}

export interface ShutdownConfig {
  /** On SIGTERM, how long work in flight may take to finish before the process exits anyway. */
  graceMs: number;
}

export interface SchedulersConfig {
  /** Background loops; off for unit tests and one-off tooling. */
  enabled: boolean;
}

export interface DemoConfig {
  /** DEMO_ACCOUNT: create the demo account on an empty embedded database outside production. */
  enabled: boolean;
  /** The demo account's key is also written here (mode 0600): next to the SQLite file; null otherwise. */
  keyFile: string | null;
}

export function serverSection(r: EnvReader): ServerConfig {
  const port = r.int('PORT', 3000, 0, 65535);
  const trustProxy = r.optional('TRUST_PROXY');
  return {
    port,
    host: r.string('HOST', '0.0.0.0'),
    publicBaseUrl: r.string('PUBLIC_BASE_URL', `http://localhost:${port}`).replace(/\/$/, ''),
    bodyLimitBytes: r.int('BODY_LIMIT_BYTES', 1024 * 1024, 1024),
    trustProxy: trustProxy === null ? null : trustProxySetting(trustProxy),
  };
}

export function loggingSection(r: EnvReader): LoggingConfig {
  return { level: r.oneOf('LOG_LEVEL', LOG_LEVELS, 'info') };
}

export function docsSection(r: EnvReader, mode: RuntimeMode): DocsConfig {
  return { enabled: r.bool('DOCS_ENABLED', !mode.isProduction) };
}

export function shutdownSection(r: EnvReader): ShutdownConfig {
  // Below Kubernetes' default terminationGracePeriodSeconds (30 s), with room to close the pools.
  return { graceMs: r.int('SHUTDOWN_GRACE_MS', 25_000, 0, 600_000) };
}

export function schedulersSection(r: EnvReader): SchedulersConfig {
  return { enabled: r.bool('SCHEDULERS_ENABLED', true) };
}

export function demoSection(r: EnvReader, db: DatabaseConfig): DemoConfig {
  return {
    enabled: r.bool('DEMO_ACCOUNT', true),
    keyFile: db.type === 'sqlite' && db.path !== ':memory:' ? join(dirname(db.path), 'demo-api-key.txt') : null,
  };
}

/**
 * TRUST_PROXY as Express wants it: `true`/`false`, a hop count (`1`: the load balancer in front), or
 * addresses/subnets/`loopback` names (comma-separated), which Express checks itself at start-up.
 */
export function trustProxySetting(value: string): boolean | number | string {
  const v = value.trim();
  if (v === 'true') return true;
  if (v === 'false') return false;
  if (/^\d+$/.test(v)) return Number(v);
  return v;
}
