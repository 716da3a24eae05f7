import request from 'supertest';
import { Clock } from '../../src/common/clock';
import { MessageLogRepository } from '../../src/messaging/message-log.repository';
import { ScheduledSender } from '../../src/messaging/scheduled/scheduled-sender';
import { createTestApp, makeDue, TestApp, testEnv, waitFor } from '../support/app';
import { Scrape } from '../support/prometheus';
import { spawnApp, SpawnedApp } from '../support/spawn-app';
import { startReceiver } from '../support/webhook-receiver';
import { BULK_TEST_ENV, deliveries, ds, getJob, post, sms, waitStatus } from '../support/bulk-helpers';

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

    // The holder's next provider call takes 3 s: SIGTERM arrives while it is in flight, and the
    // replica keeps answering (503) that long even if this test's requests are slow on a busy machine.
    const fault = await t
      .admin('post', '/admin/v1/sandbox/faults')
      .send({ kind: 'delay', delayMs: 3000, count: 1, accountId: acc.id });
    expect(fault.status).toBe(201);
    const faultId: string = fault.body.data.fault.id;
    await waitFor(
      async () =>
        Number((await ds(t).query('SELECT remaining FROM sandbox_faults WHERE id = ?', [faultId]))[0].remaining) === 0,
      {
        intervalMs: 5,
        what: 'the slow call to start',
      },
    );
    const termAt = Date.now();
    victim.app.proc.kill('SIGTERM');

    // Readiness flips at once; liveness stays 200 while the call in flight keeps the process up.
    const notReady = await waitFor(
      async () => {
        const r = await request(victim.url).get('/health/ready');
        return r.status === 503 ? r : null;
      },
      { timeoutMs: 1000, intervalMs: 10, what: 'ready 503 after SIGTERM' },
    );
    expect(notReady.body).toMatchObject({
      success: false,
      code: 'SERVICE_UNAVAILABLE',
      error: 'Not ready: shutting down',
    });
    expect((await request(victim.url).get('/health/live')).status).toBe(200);
    expect(alive(victim)).toBe(true);

    expect(await victim.app.exited).toBe(0);
    const exitAt = Date.now();
    expect(exitAt - termAt).toBeLessThan(10_000);
    expect(victim.app.output()).toContain('work in flight finished, leases released');
    expect(victim.app.output()).toMatch(
      new RegExp(`"jobId":"${jobId}".*"msg":"bulk job stopped for shutdown: outcomes recorded, lease released"`),
    );
    // The slow call ended after SIGTERM, before the exit, and its row was recorded sent.
    const late = (await deliveries(t, jobId)).filter((d) => Date.parse(d.deliveredAt) >= termAt);
    expect(late.length).toBeGreaterThanOrEqual(1);
    expect(Date.parse(late[0].deliveredAt)).toBeLessThan(exitAt);
    const [row] = await ds(t).query('SELECT status FROM bulk_rows WHERE job_id = ? AND idx = ?', [
      jobId,
      late[0].rowIndex,
    ]);
    expect(row.status).toBe('sent');

    // The other replica carries on within 2 s of the release (long before the 30 s lease would
    // expire), judged by the sandbox's delivery times rather than by how soon this test's polling
    // sees them (a loaded machine delays the polling, not the replica).
    expect((await deliveries(t, jobId)).length).toBeLessThan(total);
    const stopped = victim.app
      .output()
      .split('\n')
      .find((l) => l.includes('"msg":"bulk job stopped for shutdown'));
    const releasedAt = Number((JSON.parse(stopped!) as { time: number }).time);
    expect(releasedAt).toBeGreaterThanOrEqual(termAt);
    const resumedAt = await waitFor(
      async () => {
        const after = (await deliveries(t, jobId))
          .map((d) => Date.parse(d.deliveredAt))
          .filter((at) => at > releasedAt);
        return after.length ? Math.min(...after) : null;
      },
      { timeoutMs: 20_000, what: 'the other replica to send' },
    );
    expect(resumedAt - releasedAt).toBeLessThan(2000);
    const [held] = await ds(t).query('SELECT lease_owner FROM bulk_jobs WHERE id = ?', [jobId]);
    expect(held.lease_owner).toBe(other.id);
    // A hand-over, not a takeover of an expired lease: the metric alerts watch stays at 0.
    const scrape = await request(other.url).get('/metrics');
    expect(scrape.status).toBe(200);
    expect(new Scrape(scrape.text).value('lease_takeovers_total')).toBe(0);

    const done = await waitStatus(t, acc.key, jobId, ['completed'], 30_000);
    expect(done.counts).toEqual({ pending: 0, sent: total, failed: 0, cancelled: 0 });
    const sent = await deliveries(t, jobId);
    expect(sent).toHaveLength(total);
    expect(new Set(sent.map((d) => d.rowIndex)).size).toBe(total);
    expect(new Set(sent.map((d) => d.messageId)).size).toBe(total);
    const logged = await ds(t).query(
      'SELECT status, COUNT(*) AS n, SUM(cost) AS paid FROM messages WHERE bulk_job_id = ? GROUP BY status',
      [jobId],
    );
    expect(
      logged.map((r: { status: string; n: number; paid: number }) => [r.status, Number(r.n), Number(r.paid)]),
    ).toEqual([['sent', total, total * price]]);
    const [wallet] = await ds(t).query('SELECT wallet_balance FROM accounts WHERE id = ?', [acc.id]);
    expect(Number(wallet.wallet_balance)).toBe(100_000 - total * price);

    // An idle replica shuts down as cleanly.
    other.app.proc.kill('SIGTERM');
    expect(await other.app.exited).toBe(0);
    expect((await getJob(t, acc.key, jobId)).status).toBe('completed');
  }, 120_000);
});

/**
 * Each loop on `app.close()` (the same coordinated drain SIGTERM runs): the work in flight ends and
 * is recorded before the database closes, and no lease is left behind. An observer app opened on the
 * same database afterwards reads what the closed one wrote.
 */
describe('Clean shutdown of each loop (e2e)', () => {
  const apps: TestApp[] = [];
  const start = async (env: Record<string, string>, databaseUrl?: string) => {
    const app = await createTestApp({ env, databaseUrl });
    apps.push(app);
    return app;
  };
  /** Closes `app` keeping its database; returns how long the close took. */
  const closeKeeping = async (app: TestApp) => {
    apps.splice(apps.indexOf(app), 1);
    const began = Date.now();
    await app.close({ keepDatabase: true });
    return Date.now() - began;
  };
  const observe = (t: TestApp) => start({ SCHEDULERS_ENABLED: 'false' }, t.databaseUrl);
  afterEach(async () => {
    while (apps.length > 1) await apps.shift()!.close({ keepDatabase: true });
    if (apps.length) await apps.shift()!.close();
  });

  it('webhook delivery: the POST in flight finishes and its attempt is recorded; the lease is gone', async () => {
    const receiver = await startReceiver(() => ({ status: 200, delayMs: 800 }));
    try {
      const t = await start({ WEBHOOK_DELIVERY_INTERVAL_MS: '20', WEBHOOK_TIMEOUT_MS: '5000' });
      const acc = await t.createAccount();
      expect(
        (await t.http().put('/api/v2/webhooks/chatapp-web').set('X-API-Key', acc.key).send({ url: receiver.url }))
          .status,
      ).toBe(200);
      const queued = await t.http().post('/api/v2/webhooks/chatapp-web/test').set('X-API-Key', acc.key);
      expect(queued.status).toBe(202);
      await waitFor(async () => receiver.calls.length === 1, { intervalMs: 5, what: 'the POST to start' });
      expect(await closeKeeping(t)).toBeGreaterThanOrEqual(500);

      const o = await observe(t);
      const [d] = await ds(o).query('SELECT status, lease_owner, attempt_count FROM webhook_deliveries WHERE id = ?', [
        queued.body.data.deliveryId,
      ]);
      expect(d).toEqual({ status: 'delivered', lease_owner: null, attempt_count: 1 });
      const attempts = await ds(o).query('SELECT success, http_status FROM webhook_attempts WHERE delivery_id = ?', [
        queued.body.data.deliveryId,
      ]);
      expect(
        attempts.map((a: { success: unknown; http_status: number }) => [Boolean(a.success), Number(a.http_status)]),
      ).toEqual([[true, 200]]);
      expect(receiver.calls).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it('scheduled sender: the message being sent is delivered once and recorded sent; no lease left', async () => {
    const t = await start({ SCHEDULED_SEND_TICK_MS: '50', SANDBOX_FAULT_REFRESH_MS: '0', PROVIDER_TIMEOUT_MS: '5000' });
    const acc = await t.createAccount();
    const fault = await t
      .admin('post', '/admin/v1/sandbox/faults')
      .send({ kind: 'delay', delayMs: 800, count: 1, accountId: acc.id });
    expect(fault.status).toBe(201);
    const res = await t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send({ ...sms(), scheduleAt: new Date(Date.now() + 60_000).toISOString() });
    expect(res.status).toBe(201);
    const id: string = res.body.data.messages[0].id;
    expect(res.body.data.messages[0].status).toBe('scheduled');
    await makeDue(ds(t), [id]);
    await waitFor(
      async () =>
        Number(
          (await ds(t).query('SELECT remaining FROM sandbox_faults WHERE id = ?', [fault.body.data.fault.id]))[0]
            .remaining,
        ) === 0,
      {
        intervalMs: 5,
        what: 'the scheduled send to start',
      },
    );
    expect(await closeKeeping(t)).toBeGreaterThanOrEqual(500);

    const o = await observe(t);
    const [m] = await ds(o).query('SELECT status, lease_owner, lease_expires_at FROM messages WHERE id = ?', [id]);
    expect(m).toEqual({ status: 'sent', lease_owner: null, lease_expires_at: null });
    const sent = await o.admin('get', `/admin/v1/sandbox/messages?accountId=${acc.id}`);
    expect(sent.body.data.messages.map((d: { messageId: string }) => d.messageId)).toEqual([id]);
  });

  it('scheduled sender: a claimed message whose outcome was not recorded is handed over at once, but never becomes cancellable', async () => {
    const later = () => Date.now() + 2 * 3_600_000;
    const t = await start({ SCHEDULERS_ENABLED: 'false' });
    const acc = await t.createAccount({ walletBalance: 100, freeMessages: 0 });
    const res = await t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send({ ...sms(), scheduleAt: new Date(Date.now() + 3_600_000).toISOString() });
    expect(res.status).toBe(201);
    const id: string = res.body.data.messages[0].id;
    // The provider takes the message, then writing `sent` fails (a dropped database connection): the
    // pass logs it and goes on; the message stays `scheduled`, claimed by this replica.
    const log = t.app.get(MessageLogRepository);
    const markSent = log.markSent.bind(log);
    log.markSent = async () => {
      log.markSent = markSent;
      throw new Error('Connection lost: The server closed the connection.');
    };
    t.app.get(Clock).now = later;
    await t.app.get(ScheduledSender).runOnce();
    const [claimed] = await ds(t).query('SELECT status, lease_owner FROM messages WHERE id = ?', [id]);
    expect(claimed.status).toBe('scheduled');
    expect(claimed.lease_owner).not.toBeNull();
    await closeKeeping(t);

    const o = await start({ SCHEDULERS_ENABLED: 'false' }, t.databaseUrl);
    const [released] = await ds(o).query('SELECT status, lease_owner FROM messages WHERE id = ?', [id]);
    expect(released).toEqual({ status: 'scheduled', lease_owner: null });
    // The provider may have it: a cancel (and its refund) must not win over settling it.
    const cancel = await o.http().post(`/api/v2/messages/${id}/cancel`).set('X-API-Key', acc.key);
    expect(cancel.status).toBe(409);
    expect(cancel.body).toMatchObject({
      success: false,
      code: 'INVALID_STATE',
      error: expect.stringMatching(/being sent/),
    });
    // The next sender takes it at once (no lease to wait out), asks the provider and records the first send.
    o.app.get(Clock).now = later;
    expect(await o.app.get(ScheduledSender).runOnce()).toBe(1);
    const [m] = await ds(o).query('SELECT status, cost, attempts FROM messages WHERE id = ?', [id]);
    expect([m.status, Number(m.cost), Number(m.attempts)]).toEqual(['sent', 5, 2]);
    const sent = await o.admin('get', `/admin/v1/sandbox/messages?accountId=${acc.id}`);
    expect(sent.body.data.messages.map((d: { messageId: string }) => d.messageId)).toEqual([id]);
    expect((await o.http().get('/api/v2/account').set('X-API-Key', acc.key)).body.data.walletBalance).toBe(95);
  });

  it('bulk validation: stops after the chunk in progress, keeps validatedCount and lets go of the job', async () => {
    const CHUNK = 5;
    const t = await start({ ...BULK_TEST_ENV, BULK_VALIDATION_CHUNK: String(CHUNK) });
    // Watches through its own connection (on SQLite the validating app's queries share one).
    const o = await observe(t);
    const acc = await t.createAccount({ walletBalance: 10_000_000 });
    const total = 30_000;
    const res = await post(t, acc.key, { messagesPerSecond: 5, messages: Array.from({ length: total }, () => sms()) });
    expect(res.status).toBe(202);
    const jobId: string = res.body.id;
    await waitFor(
      async () =>
        Number((await ds(o).query('SELECT validated_count FROM bulk_jobs WHERE id = ?', [jobId]))[0].validated_count) >
        0,
      {
        intervalMs: 2,
        what: 'validation to start',
      },
    );
    await closeKeeping(t);

    const [job] = await ds(o).query(
      'SELECT status, lease_owner, lease_expires_at, validated_count FROM bulk_jobs WHERE id = ?',
      [jobId],
    );
    expect(job).toMatchObject({ status: 'validating', lease_owner: null, lease_expires_at: null });
    expect(Number(job.validated_count)).toBeGreaterThan(0);
    expect(Number(job.validated_count)).toBeLessThan(total);
    expect(Number(job.validated_count) % CHUNK).toBe(0);
  });
});
