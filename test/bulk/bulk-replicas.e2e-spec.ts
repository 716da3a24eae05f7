import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { Env } from '../../src/config/app-config';
import { WINDOW_TX_OPEN_MARKER } from '../../src/bulk/window-tx-probe';
import { createTestApp, TestApp, testEnv, waitFor } from '../support/app';
import { isMysqlRun } from '../support/database';
import { MAIN_TS_ARGS, MAIN_TS_ENV } from '../support/spawn-app';
import { BULK_TEST_ENV, deliveries, ds, getJob, maxInAnySecond, post, sms, waitStatus } from '../support/bulk-helpers';

interface Replica {
  id: string;
  proc: ChildProcess;
  ready: Promise<void>;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
}

/** A separate process running the real app (ts-node) against the shared database. */
function startReplica(id: string, databaseUrl: string, extra: Env = {}): Replica {
  const proc = spawn(process.execPath, MAIN_TS_ARGS, {
    cwd: join(__dirname, '..', '..'),
    // The in-process apps' settings (admin token, secret, ...), so the observer reads what replicas write.
    env: {
      PATH: process.env.PATH,
      ...MAIN_TS_ENV,
      ...testEnv({
        DATABASE_URL: databaseUrl,
        PORT: '0',
        HOST: '127.0.0.1',
        ...BULK_TEST_ENV,
        BULK_LEASE_MS: '1500',
        PROVIDER_TIMEOUT_MS: '500',
        BULK_INSTANCE_ID: id,
        ...extra,
      }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const ready = new Promise<void>((resolve, reject) => {
    proc.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.includes('listening')) resolve();
    });
    proc.stderr!.on('data', (b: Buffer) => (out += b.toString()));
    proc.on('exit', (code) => reject(new Error(`replica ${id} exited (${code}): ${out.slice(-2000)}`)));
  });
  return { id, proc, ready, output: () => out };
}

const alive = (r: Replica) => r.proc.exitCode === null && r.proc.signalCode === null;

describe('Bulk with two replicas (e2e)', () => {
  let t: TestApp;
  const replicas: Replica[] = [];

  beforeAll(async () => {
    // The in-process app only observes (admin API, reads): no loops of its own.
    t = await createTestApp({ env: { ...BULK_TEST_ENV, SCHEDULERS_ENABLED: 'false' } });
  });
  afterAll(async () => {
    for (const r of replicas) if (alive(r)) r.proc.kill('SIGKILL');
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
    await waitFor(async () => (await getJob(t, acc.key, id)).counts.sent >= 15, {
      timeoutMs: 30000,
      what: '15 rows sent',
    });
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
    const logged = await ds(t).query(
      'SELECT status, COUNT(*) AS n FROM messages WHERE bulk_job_id = ? GROUP BY status',
      [id],
    );
    expect(logged.map((r: { status: string; n: number }) => [r.status, Number(r.n)])).toEqual([['sent', total]]);
    const [acct] = await ds(t).query('SELECT wallet_balance FROM accounts WHERE id = ?', [acc.id]);
    expect(Number(acct.wallet_balance)).toBe(100_000 - total * 5);
  }, 90_000);
});

// Row locks held by a paused process and the server's idle-transaction timeout exist only on
// MySQL/MariaDB (SQLite has one writer and no replica can hold a transaction across processes
// here), so this suite is defined only on MySQL runs.
if (isMysqlRun()) {
  describe('Bulk with two replicas: the lease holder frozen inside its window transaction (MariaDB)', () => {
    const LEASE_MS = 6000;
    /** Longer than the lease plus the takeover budget, as a long GC pause or a partition would be. */
    const FREEZE_MS = 10_000;
    let t: TestApp;
    const replicas: Replica[] = [];

    beforeAll(async () => {
      t = await createTestApp({ env: { ...BULK_TEST_ENV, SCHEDULERS_ENABLED: 'false' } });
    });
    afterAll(async () => {
      for (const r of replicas) {
        if (!alive(r)) continue;
        r.proc.kill('SIGCONT');
        r.proc.kill('SIGKILL');
      }
      await t.close();
    });

    it('another replica takes the job over and keeps other accounts sending within lease + 3 s; the frozen one stands down; every row once, money exact', async () => {
      // Dispatch lease = max(BULK_LEASE_MS, 2 x provider timeout) = 6 s. Provider calls get 2 s: with two
      // replicas, this suite and the database on a loaded box, a healthy sandbox call can pass 1 s and fail
      // its row (the rows here must all be sent). Warnings on, to see the stand-down.
      const env = {
        BULK_LEASE_MS: String(LEASE_MS),
        PROVIDER_TIMEOUT_MS: '2000',
        BULK_TEST_HOOKS: 'true',
        LOG_LEVEL: 'warn',
      };
      replicas.push(startReplica('rep_frz_a', t.databaseUrl, env), startReplica('rep_frz_b', t.databaseUrl, env));
      await Promise.all(replicas.map((r) => r.ready));
      const price = 5;
      const accA = await t.createAccount({ walletBalance: 100_000 });
      const accB = await t.createAccount({ walletBalance: 100_000 });
      const totalA = 60;
      const totalB = 20;
      const resA = await post(t, accA.key, {
        messagesPerSecond: 10,
        messages: Array.from({ length: totalA }, () => sms()),
      });
      expect(resA.status).toBe(202);
      const jobA: string = resA.body.id;
      await waitFor(async () => (await getJob(t, accA.key, jobA)).counts.sent >= 10, {
        timeoutMs: 30000,
        what: '10 rows of job A sent',
      });

      // Freeze the lease holder while it holds a window transaction open (lease renewed, row locked).
      const [{ lease_owner: owner }] = await ds(t).query('SELECT lease_owner FROM bulk_jobs WHERE id = ?', [jobA]);
      const victim = replicas.find((r) => r.id === owner)!;
      const healthy = replicas.find((r) => r.id !== owner)!;
      expect(victim).toBeDefined();
      victim.proc.kill('SIGWINCH');
      await waitFor(async () => victim.output().includes(`${WINDOW_TX_OPEN_MARKER} ${jobA}`), {
        timeoutMs: 10000,
        what: 'window transaction held open',
      }).catch((err: Error) => {
        throw new Error(
          `${err.message}; victim exit=${victim.proc.exitCode} signal=${victim.proc.signalCode} output: ${victim.output().slice(-3000)}`,
        );
      });
      victim.proc.kill('SIGSTOP');
      const frozenAt = Date.now();
      const sentAtFreeze = (await deliveries(t, jobA)).length;
      expect(sentAtFreeze).toBeLessThan(totalA);

      // Another account's job, made claimable once job A's lease has run out (or was already taken
      // over), so the healthy replica's claims cover both jobs at once.
      await waitFor(
        async () => {
          const [j] = await ds(t).query('SELECT lease_owner, lease_expires_at FROM bulk_jobs WHERE id = ?', [jobA]);
          return j.lease_owner !== victim.id || Number(j.lease_expires_at) < Date.now();
        },
        { timeoutMs: LEASE_MS + 2000, what: "job A's lease to expire" },
      );
      const resB = await post(t, accB.key, {
        messagesPerSecond: 10,
        messages: Array.from({ length: totalB }, () => sms()),
      });
      expect(resB.status).toBe(202);
      const jobB: string = resB.body.id;

      // Both keep sending within lease + 3 s of the freeze, while the victim is still frozen.
      const budget = frozenAt + LEASE_MS + 3000;
      const progress = async () => ({
        a: (await deliveries(t, jobA)).length - sentAtFreeze,
        b: (await deliveries(t, jobB)).length,
      });
      await waitFor(
        async () => {
          const p = await progress();
          return p.a > 0 && p.b > 0;
        },
        {
          timeoutMs: Math.max(100, budget - Date.now()),
          what: 'jobs A and B sending again while the lease holder is frozen',
        },
      ).catch(async (err: Error) => {
        throw new Error(
          `${err.message}: ${JSON.stringify(await progress())} sent since the freeze (A, B) ${Date.now() - frozenAt} ms after it`,
        );
      });
      expect(Date.now()).toBeLessThanOrEqual(budget + 500);
      const [taken] = await ds(t).query('SELECT lease_owner FROM bulk_jobs WHERE id = ?', [jobA]);
      expect([healthy.id, null]).toContain(taken.lease_owner);

      // The freeze itself lasts its full length (a wall-clock pause is what is being simulated).
      await new Promise((r) => setTimeout(r, Math.max(0, frozenAt + FREEZE_MS - Date.now())));
      victim.proc.kill('SIGCONT');
      // Its killed transaction's error makes it let go of the job instead of sending or crashing.
      await waitFor(async () => victim.output().includes('stood down'), {
        timeoutMs: 10000,
        what: 'the frozen replica to stand down',
      });

      const doneA = await waitStatus(t, accA.key, jobA, ['completed'], 40000);
      const doneB = await waitStatus(t, accB.key, jobB, ['completed'], 40000);
      // (Any row not sent is named with its message's outcome, so a failure says why.)
      const unsent = await ds(t).query(
        "SELECT r.job_id, r.idx, r.status, m.status AS message_status, m.error_code, m.error_message FROM bulk_rows r LEFT JOIN messages m ON m.id = r.message_id WHERE r.job_id IN (?, ?) AND r.status <> 'sent'",
        [jobA, jobB],
      );
      expect({ a: doneA.counts, b: doneB.counts, unsent }).toEqual({
        a: { pending: 0, sent: totalA, failed: 0, cancelled: 0 },
        b: { pending: 0, sent: totalB, failed: 0, cancelled: 0 },
        unsent: [],
      });
      expect(alive(victim)).toBe(true);
      for (const [jobId, total, acc] of [
        [jobA, totalA, accA],
        [jobB, totalB, accB],
      ] as const) {
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
        const [acct] = await ds(t).query('SELECT wallet_balance FROM accounts WHERE id = ?', [acc.id]);
        expect(Number(acct.wallet_balance)).toBe(100_000 - total * price);
      }
    }, 120_000);
  });
}
