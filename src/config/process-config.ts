import { AppConfig, loadConfig } from './app-config';

let loaded: AppConfig | null = null;

/**
 * This process's configuration, from `process.env` (read here and nowhere else). Loaded once: main.ts
 * calls it first, so a bad value stops start-up before anything else, and the ConfigModule then
 * provides the same instance. A failed load is not kept (it throws again).
 */
export function processConfig(): AppConfig {
  loaded ??= loadConfig(process.env);
  return loaded;
}
