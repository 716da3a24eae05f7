import { AppConfig, ConfigError } from '../config/app-config';

// Typed readers for adapter settings on top of AppConfig (the one place env is read). Each throws a
// ConfigError naming the variable, so a bad value stops start-up with a clear message.

export function readUrl(config: AppConfig, name: string, fallback: string | null, protocols: string[]): string {
  const raw = fallback === null ? config.required(name) : config.optional(name) ?? fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL: "${raw}"`);
  }
  if (!protocols.includes(url.protocol.replace(/:$/, ''))) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}://, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

export function readPattern(config: AppConfig, name: string, def: string, pattern: RegExp, hint: string): string {
  const raw = config.optional(name) ?? def;
  if (!pattern.test(raw)) throw new ConfigError(`${name} must be ${hint}, got "${raw}"`);
  return raw;
}
