import { Logger } from '@nestjs/common';
import { AppConfig, Env, loadConfig } from '../../src/config/app-config';

/** A real AppConfig for adapter-level tests (no app boot, so no database or other modules). */
export function adapterConfig(env: Env): AppConfig {
  return loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: 'sqlite::memory:', ...env });
}

// Adapter logs are noise in test output (set TEST_LOG_LEVEL to see them).
if (!process.env.TEST_LOG_LEVEL) Logger.overrideLogger(false);
