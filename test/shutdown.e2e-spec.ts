import request from 'supertest';
import { createTestApp, TestApp, testEnv, waitFor } from './support/app';
import { spawnApp, SpawnedApp } from './support/spawn-app';
import { BULK_TEST_ENV, deliveries, ds, getJob, post, sms, waitStatus } from './bulk-helpers';

interface Replica {
  id: string;
  app: SpawnedApp;
  url: string;
}

const alive = (r: Replica) => r.app.proc.exitCode === null && r.app.proc.signalCode === null;

/**
 * SIGTERM a replica in the middle of a bulk job: it stops claiming, lets its provider call in flight
 * finish and records it, releases the job's lease and exits 0; the other replica continues at once.
 * The dispatch lease is 30 s, so a hand-over within 2 s can only come from the release, not expiry.
 */
describe('Clean shutdown with two replicas (e2e)', () => {
  const LEASE_MS = 30_000;
  let t: TestApp;
  const replicas: Replica[] = [];

  async function startReplica(id: string): Promise<Replica> {
    const app = spawnApp(
      testEnv({
        DATABASE_URL: t.databaseUrl,
        PORT: '0',
        HOST: '127.0.0.1',
        ...BULK_TEST_ENV,
        BULK_LEASE_MS: String(LEASE_MS),
        // Longer than the slow call below, so it ends sent rather than timed out.
        PROVIDER_TIMEOUT_MS: '5000',
        BULK_INSTANCE_ID: id,
        SHUTDOWN_GRACE_MS: '15000',
        // The shutdown's own log lines are asserted on.
        LOG_LEVEL: 'info',
      }),
    );
    const out = await app.waitForOutput(/listening on (http:\S+)/);
    return { id, app, url: /listening on (http:\S+)/.exec(out)![1] };
  }

  beforeAll(async () => {
    // The in-process app only observes (admin API, reads): no loops of its own.
    t = await createTestApp({ env: { ...BULK_TEST_ENV, SCHEDULERS_ENABLED: 'false' } });
  });
  afterAll(async () => {
    for (const r of replicas) if (alive(r)) r.app.proc.kill('SIGKILL');
    await t.close();
  });

  it('SIGTERM to the lease holder mid-job: readiness 503 at once, the call in flight is recorded, exit 0; the other replica continues within 2 s; every row sent once', async () => {
    replicas.push(...(await Promise.all([startReplica('rep_sd_a'), startReplica('rep_sd_b')])));
    const price = 5;
    const total = 40;
    const acc = await t.createAccount({ walletBalance: 100_000, freeMessages: 0 });
    const res = await post(t, acc.key, { messagesPerSecond: 5, messages: Array.from({ length: total }, () => sms()) });
    expect(res.status).toBe(202);
    const jobId: string = res.body.id;
    await waitFor(async () => (await deliveries(t, jobId)).length >= 5, { timeoutMs: 30_000, what: '5 rows sent' });
    const [{ lease_owner: owner }] = await ds(t).query('SELECT lease_owner FROM bulk_jobs WHERE id = ?', [jobId]);
    const victim = replicas.find((r) => r.id === owner)!;
    const other = replicas.find((r) => r.id !== owner)!;
    expect(victim).toBeDefined();

    // The holder's next provider call takes 1.5 s: SIGTERM arrives while it is in flight.
    const fault = await t.admin('post', '/admin/v1/sandbox/faults').send({ kind: 'delay', delayMs: 1500, count: 1, accountId: acc.id });
    expect(fault.status).toBe(201);
    const faultId: string = fault.body.data.fault.id;
    await waitFor(async () => Number((await ds(t).query('SELECT remaining FROM sandbox_faults WHERE id = ?', [faultId]))[0].remaining) === 0, {
      intervalMs: 5,
      what: 'the slow call to start',
    });
    const termAt = Date.now();
    victim.app.proc.kill('SIGTERM');

    // Readiness flips at once; liveness stays 200 while the call in flight keeps the process up.
    const notReady = await waitFor(async () => {
      const r = await request(victim.url).get('/health/ready');
      return r.status === 503 ? r : null;
    }, { timeoutMs: 1000, intervalMs: 10, what: 'ready 503 after SIGTERM' });
    expect(notReady.body).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE', error: 'Not ready: shutting down' });
    expect((await request(victim.url).get('/health/live')).status).toBe(200);
    expect(alive(victim)).toBe(true);

    expect(await victim.app.exited).toBe(0);
    const exitAt = Date.now();
    expect(exitAt - termAt).toBeLessThan(10_000);
    expect(victim.app.output()).toContain('work in flight finished, leases released');
    expect(victim.app.output()).toMatch(new RegExp(`"jobId":"${jobId}".*"msg":"bulk job stopped for shutdown: outcomes recorded, lease released"`));
    // The slow call ended after SIGTERM, before the exit, and its row was recorded sent.
    const late = (await deliveries(t, jobId)).filter((d) => Date.parse(d.deliveredAt) >= termAt);
    expect(late.length).toBeGreaterThanOrEqual(1);
    expect(Date.parse(late[0].deliveredAt)).toBeLessThan(exitAt);
    const [row] = await ds(t).query('SELECT status FROM bulk_rows WHERE job_id = ? AND idx = ?', [jobId, late[0].rowIndex]);
    expect(row.status).toBe('sent');

    // The other replica carries on within 2 s of the exit (long before the 30 s lease would expire).
    const sentAtExit = (await deliveries(t, jobId)).length;
    expect(sentAtExit).toBeLessThan(total);
    await waitFor(async () => (await deliveries(t, jobId)).length > sentAtExit, { timeoutMs: 2000, intervalMs: 20, what: 'the other replica to send within 2 s' });
    const [held] = await ds(t).query('SELECT lease_owner FROM bulk_jobs WHERE id = ?', [jobId]);
    expect(held.lease_owner).toBe(other.id);

    const done = await waitStatus(t, acc.key, jobId, ['completed'], 30_000);
    expect(done.counts).toEqual({ pending: 0, sent: total, failed: 0, cancelled: 0 });
    const sent = await deliveries(t, jobId);
    expect(sent).toHaveLength(total);
    expect(new Set(sent.map((d) => d.rowIndex)).size).toBe(total);
    expect(new Set(sent.map((d) => d.messageId)).size).toBe(total);
    const logged = await ds(t).query('SELECT status, COUNT(*) AS n, SUM(cost) AS paid FROM messages WHERE bulk_job_id = ? GROUP BY status', [jobId]);
    expect(logged.map((r: { status: string; n: number; paid: number }) => [r.status, Number(r.n), Number(r.paid)])).toEqual([['sent', total, total * price]]);
    const [wallet] = await ds(t).query('SELECT wallet_balance FROM accounts WHERE id = ?', [acc.id]);
    expect(Number(wallet.wallet_balance)).toBe(100_000 - total * price);

    // An idle replica shuts down as cleanly.
    other.app.proc.kill('SIGTERM');
    expect(await other.app.exited).toBe(0);
    expect((await getJob(t, acc.key, jobId)).status).toBe('completed');
  }, 120_000);
});
