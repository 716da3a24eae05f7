import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { ShutdownCoordinator } from '../../src/common/shutdown/shutdown-coordinator';
import { MIGRATIONS } from '../../src/database/migrations';
import { createTestApp, REQUEST_ID_RE, TestApp } from '../support/app';

const READY = {
  status: 'ok',
  database: 'up',
  redis: process.env.TEST_REDIS_URL ? 'up' : 'not_configured',
  migrations: 'up_to_date',
};

describe('Health: liveness and readiness (e2e)', () => {
  const apps: TestApp[] = [];
  const start = async (env: Record<string, string> = {}) => {
    const t = await createTestApp({ env: { SCHEDULERS_ENABLED: 'false', ...env } });
    apps.push(t);
    return t;
  };
  afterEach(async () => {
    for (const t of apps.splice(0)) await t.close();
  });

  const notReady = (body: Record<string, unknown>, error: string) => {
    expect(body).toEqual({
      success: false,
      code: 'SERVICE_UNAVAILABLE',
      error,
      requestId: expect.stringMatching(REQUEST_ID_RE),
    });
  };

  it('ready reports the database, Redis (when configured) and migrations', async () => {
    const t = await start();
    const res = await t.http().get('/health/ready');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(READY);
  });

  it('a migration this version knows but the database has not run: 503 naming it, 200 again once it is recorded', async () => {
    const t = await start();
    const ds = t.app.get(DataSource);
    const last = MIGRATIONS[MIGRATIONS.length - 1].name;
    const [row] = await ds.query('SELECT id, timestamp, name FROM migrations WHERE name = ?', [last]);
    expect(row).toBeDefined();
    // As a database restored from a backup taken before this version's last migration would be.
    await ds.query('DELETE FROM migrations WHERE name = ?', [last]);
    const res = await t.http().get('/health/ready');
    expect(res.status).toBe(503);
    notReady(res.body, `Not ready: 1 migration(s) pending: ${last}`);
    expect((await t.http().get('/health/live')).status).toBe(200);

    await ds.query('INSERT INTO migrations (id, timestamp, name) VALUES (?, ?, ?)', [row.id, row.timestamp, row.name]);
    expect((await t.http().get('/health/ready')).body).toEqual(READY);
  });

  it('the database not answering: 503 naming it; 200 again once it is back; live stays 200', async () => {
    const t = await start();
    const ds = t.app.get(DataSource);
    // The pool closed under the running app, as after losing the database server.
    await ds.destroy();
    try {
      const res = await t.http().get('/health/ready');
      expect(res.status).toBe(503);
      notReady(res.body, 'Not ready: database unreachable');
      expect((await t.http().get('/health/live')).status).toBe(200);
    } finally {
      await ds.initialize();
    }
    expect((await t.http().get('/health/ready')).body).toEqual(READY);
  });

  it('Redis configured but not reachable: ready answers 503 naming it (within the check timeout); live stays 200', async () => {
    // A port nothing listens on (bound, then released).
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const t = await start({ REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_KEY_PREFIX: 'msgtest:health:' });
    const began = Date.now();
    const res = await t.http().get('/health/ready');
    expect(res.status).toBe(503);
    notReady(res.body, 'Not ready: redis unreachable');
    expect(Date.now() - began).toBeLessThan(4000);
    // While the client retries, the answer is immediate (no PING piles up behind the others).
    const again = Date.now();
    expect((await t.http().get('/health/ready')).status).toBe(503);
    expect(Date.now() - again).toBeLessThan(1000);
    expect((await t.http().get('/health/live')).status).toBe(200);
  });

  it('from the moment shutdown begins ready answers 503 "shutting down" while live stays 200', async () => {
    const t = await start();
    expect((await t.http().get('/health/ready')).status).toBe(200);
    t.app.get(ShutdownCoordinator).begin('test');
    const res = await t.http().get('/health/ready');
    expect(res.status).toBe(503);
    notReady(res.body, 'Not ready: shutting down');
    expect((await t.http().get('/health/live')).body).toEqual({ status: 'ok' });
  });
});
