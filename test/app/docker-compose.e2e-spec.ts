import { readFileSync } from 'node:fs';
import { join } from 'node:path';
// js-yaml comes with @nestjs/swagger (pinned there); no Docker daemon runs here, so the file is read as data.
import { load } from 'js-yaml';
import { loadConfig } from '../../src/config/app-config';

type Service = {
  command?: string[];
  environment?: Record<string, string>;
  ports?: (string | { host_ip?: string; published?: string })[];
  stop_grace_period?: string;
};
type Compose = { services: Record<string, Service> };

const compose = load(readFileSync(join(__dirname, '..', '..', 'docker-compose.yml'), 'utf8')) as Compose;

/**
 * Compose's variable interpolation (`${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?error}`,
 * `${VAR?error}`), enough to see what an unconfigured `docker compose up` would get.
 */
function interpolate(value: string, env: Record<string, string>): string {
  return value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}/g,
    (_m, name: string, colon: string, op: string, arg: string) => {
      const set = name in env && (colon !== ':' || env[name] !== '');
      if (set) return env[name];
      if (op === '?') throw new Error(`required variable ${name} is missing: ${arg}`);
      return op === '-' ? arg : '';
    },
  );
}

function published(service: Service, env: Record<string, string>): string[] {
  return (service.ports ?? []).map((p) =>
    typeof p === 'string' ? interpolate(p, env) : `${p.host_ip ?? ''}:${p.published ?? ''}`,
  );
}

describe('docker-compose.yml', () => {
  const api = compose.services.api;
  const secrets = { ADMIN_TOKEN: 'a'.repeat(32), APP_SECRET: 'b'.repeat(32) };

  it.each(['ADMIN_TOKEN', 'APP_SECRET'])('refuses to start without %s (no known default)', (name) => {
    const raw = api.environment?.[name];
    expect(raw).toMatch(new RegExp(`^\\$\\{${name}:\\?.+\\}$`));
    const others = { ...secrets } as Record<string, string>;
    delete others[name];
    expect(() => interpolate(raw!, others)).toThrow(name);
    expect(() => interpolate(raw!, { ...others, [name]: '' })).toThrow(name);
    expect(interpolate(raw!, secrets)).toBe(secrets[name as keyof typeof secrets]);
  });

  it('waits longer than the shutdown grace period (plus room to close) before killing the API', () => {
    const m = /^(\d+)s$/.exec(api.stop_grace_period ?? '');
    expect(m).not.toBeNull();
    const grace = loadConfig({ SHUTDOWN_GRACE_MS: api.environment?.SHUTDOWN_GRACE_MS }).shutdown.graceMs;
    expect(Number(m![1]) * 1000).toBeGreaterThanOrEqual(grace + 5000);
  });

  it('gives MySQL a buffer pool of 1 GiB unless MYSQL_BUFFER_POOL_SIZE says otherwise (not the 128 MiB default)', () => {
    const pool = (env: Record<string, string>) =>
      (compose.services.mysql.command ?? [])
        .map((c) => interpolate(c, env))
        .filter((c) => c.startsWith('--innodb-buffer-pool-size='));
    expect(pool({})).toEqual(['--innodb-buffer-pool-size=1G']);
    expect(pool({ MYSQL_BUFFER_POOL_SIZE: '6G' })).toEqual(['--innodb-buffer-pool-size=6G']);
  });

  it('runs the API in production mode', () => {
    expect(api.environment?.NODE_ENV).toBe('production');
  });

  it('publishes the API on 127.0.0.1 unless BIND_ADDRESS says otherwise', () => {
    expect(published(api, secrets)).toEqual(['127.0.0.1:3000:3000']);
    expect(published(api, { ...secrets, BIND_ADDRESS: '0.0.0.0' })).toEqual(['0.0.0.0:3000:3000']);
  });

  it('publishes no other service on any interface (database and Redis stay on the compose network)', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      if (name === 'api') continue;
      expect({ name, ports: service.ports ?? [] }).toEqual({ name, ports: [] });
    }
  });
});
