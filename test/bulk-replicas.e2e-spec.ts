import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createTestApp, TestApp, testEnv, waitFor } from './support/app';
import { BULK_TEST_ENV, deliveries, ds, getJob, maxInAnySecond, post, sms, waitStatus } from './bulk-helpers';

interface Replica {
  id: string;
  proc: ChildProcess;
  ready: Promise<void>;
}

/** A separate process running the real app (ts-node) against the shared database. */
function startReplica(id: string, databaseUrl: string): Replica {
  const proc = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', join(__dirname, '..', 'src', 'main.ts')], {
    cwd: join(__dirname, '..'),
    // The in-process apps' settings (admin token, secret, ...), so the observer reads what replicas write.
    env: {
      PATH: process.env.PATH,
      ...testEnv({
        DATABASE_URL: databaseUrl,
        PORT: '0',
        HOST: '127.0.0.1',
        ...BULK_TEST_ENV,
        BULK_LEASE_MS: '1500',
        PROVIDER_TIMEOUT_MS: '500',
        BULK_INSTANCE_ID: id,
      }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ready = new Promise<void>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.includes('listening')) resolve();
    });
    proc.stderr!.on('data', (b: Buffer) => (out += b.toString()));
    proc.on('exit', (code) => reject(new Error(`replica ${id} exited (${code}): ${out.slice(-2000)}`)));
  });
  return { id, proc, ready };
}

describe('Bulk with two replicas (e2e)', () => {
  let t: TestApp;
  const replicas: Replica[] = [];

  beforeAll(async () => {
    // The in-process app only observes (admin API, reads): no loops of its own.
    t = await createTestApp({ env: { ...BULK_TEST_ENV, SCHEDULERS_ENABLED: 'false' } });
  });
  afterAll(async () => {
    for (const r of replicas) if (r.proc.exitCode === null && r.proc.signalCode === null) r.proc.kill('SIGKILL');
    await t.close();
  });

  it('the lease holder is SIGKILLed mid-job; the other replica finishes with no row sent twice or lost', async () => {
    replicas.push(startReplica('rep_test_a', t.databaseUrl), startReplica('rep_test_b', t.databaseUrl));
    await Promise.all(replicas.map((r) => r.ready));
    const acc = await t.createAccount({ walletBalance: 100_000 });
    const total = 60;
    const res = await post(t, acc.key, { messagesPerSecond: 10, messages: Array.from({ length: total }, () => sms()) });
    expect(res.status).toBe(202);
    const id = res.body.id;
    await waitFor(async () => (await getJob(t, acc.key, id)).counts.sent >= 15, { timeoutMs: 30000, what: '15 rows sent' });
    const [{ lease_owner: owner }] = await ds(t).query('SELECT lease_owner FROM bulk_jobs WHERE id = ?', [id]);
    const victim = replicas.find((r) => r.id === owner);
    expect(victim).toBeDefined();
    victim!.proc.kill('SIGKILL');
    const sentAtKill = (await getJob(t, acc.key, id)).counts.sent;
    expect(sentAtKill).toBeLessThan(total);

    const done = await waitStatus(t, acc.key, id, ['completed'], 40000);
    expect(done.counts).toEqual({ pending: 0, sent: total, failed: 0, cancelled: 0 });
    const sent = await deliveries(t, id);
    expect(sent).toHaveLength(total);
    expect(new Set(sent.map((d) => d.rowIndex)).size).toBe(total);
    expect(new Set(sent.map((d) => d.messageId)).size).toBe(total);
    expect(maxInAnySecond(sent.map((d) => Date.parse(d.deliveredAt)))).toBeLessThanOrEqual(10);
    const logged = await ds(t).query('SELECT status, COUNT(*) AS n FROM messages WHERE bulk_job_id = ? GROUP BY status', [id]);
    expect(logged.map((r: { status: string; n: number }) => [r.status, Number(r.n)])).toEqual([['sent', total]]);
    const [acct] = await ds(t).query('SELECT wallet_balance FROM accounts WHERE id = ?', [acc.id]);
    expect(Number(acct.wallet_balance)).toBe(100_000 - total * 5);
  }, 90_000);
});
