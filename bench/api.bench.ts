// npm run bench:api — authenticated, database-backed GET /api/v2/account vs a bare NestJS GET in the
// same run (autocannon, 50 connections, BENCH_DURATION s per run, BENCH_ROUNDS alternated runs, medians).
// Target: account >= 60% of the baseline's req/s.
//   default:  in-process: one child process serves both apps (ts-node, LOG_LEVEL=silent, one key).
//   --built:  out-of-process: the built service (`npm run build` first) started as `npm run start:prod`
//             starts it, with default settings (info logging to a file, the default throttle), and the
//             bare app in another process; each of the 50 connections sends its own key, so no key
//             passes the default per-key limit. BENCH_CPU_PROF=<dir> profiles the service.
import autocannon from 'autocannon';
import { ChildProcess, fork, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, ROOT, startProdFlags, waitUntilLive } from './built-service';

const DURATION = Number(process.env.BENCH_DURATION || 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const CONNECTIONS = 50;
const TARGET = 0.6;
const ADMIN_TOKEN = 'bench-admin-token-0123456789';

interface Target {
  bareUrl: string;
  accountUrl: string;
  /** CONNECTIONS keys for one measured run (the same key repeated in-process). */
  keysForRun(): Promise<string[]>;
  stop(): void;
}

function run(url: string, keys: string[] | null, duration = DURATION, connections = CONNECTIONS) {
  let next = 0;
  return autocannon({
    url,
    connections,
    duration,
    ...(keys
      ? { setupClient: (client: autocannon.Client) => client.setHeaders({ 'x-api-key': keys[next++ % keys.length] }) }
      : {}),
  });
}

function childMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    child.once('message', (m) => resolve(m as T));
    child.once('exit', (code) => reject(new Error(`child exited ${code}`)));
  });
}

async function inProcess(): Promise<Target> {
  const child = fork(join(__dirname, 'api-server.ts'), [], {
    execArgv: ['-r', 'ts-node/register/transpile-only'],
    stdio: 'inherit',
  });
  const ready = await childMessage<{ barePort: number; appPort: number; key: string }>(child);
  return {
    bareUrl: `http://127.0.0.1:${ready.barePort}/bare`,
    accountUrl: `http://127.0.0.1:${ready.appPort}/api/v2/account`,
    keysForRun: async () => [ready.key],
    stop: () => child.kill(),
  };
}

async function outOfProcess(): Promise<Target> {
  const main = join(ROOT, 'dist', 'src', 'main.js');
  if (!existsSync(main)) throw new Error('dist/src/main.js is missing: run `npm run build` first');
  // The node flags `npm run start:prod` uses, for the service and the baseline alike.
  const nodeFlags = startProdFlags();
  const dir = mkdtempSync(join(tmpdir(), 'bench-api-built-'));
  const port = await freePort();
  const logFile = join(dir, 'service.log');
  // BENCH_CPU_PROF=<dir>: a V8 CPU profile of the service, written when it stops.
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const service = spawn(process.execPath, [...nodeFlags, ...prof, main], {
    cwd: ROOT,
    // Default settings but the port, a fresh embedded database and an admin token to create keys with.
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      DATABASE_URL: `sqlite:${join(dir, 'bench.sqlite')}`,
      ADMIN_TOKEN,
    },
    stdio: ['ignore', openSync(logFile, 'w'), 'inherit'],
  });
  const bare = fork(join(__dirname, 'bare-app.ts'), [], {
    execArgv: [...nodeFlags, '-r', 'ts-node/register/transpile-only'],
    stdio: 'inherit',
  });
  const stop = () => {
    service.kill('SIGTERM');
    bare.kill();
  };
  try {
    const { barePort } = await childMessage<{ barePort: number }>(bare);
    const base = `http://127.0.0.1:${port}`;
    await waitUntilLive(`${base}/health/live`, service);
    console.log(`service log (info level): ${logFile}`);
    let accounts = 0;
    const newKey = async (): Promise<string> => {
      const res = await fetch(`${base}/admin/v1/accounts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Bench ${++accounts}` }),
      });
      if (res.status !== 201) throw new Error(`creating an account answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { data: { apiKey: { key: string } } }).data.apiKey.key;
    };
    return {
      bareUrl: `http://127.0.0.1:${barePort}/bare`,
      accountUrl: `${base}/api/v2/account`,
      // Fresh keys for every run: each key's default allowance (1,200 a minute) covers one run.
      keysForRun: async () => {
        const keys: string[] = [];
        for (let i = 0; i < CONNECTIONS; i++) keys.push(await newKey());
        return keys;
      },
      stop,
    };
  } catch (err) {
    stop();
    throw err;
  }
}

function median(values: number[]): number {
  const v = [...values].sort((a, b) => a - b);
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
}

async function main(): Promise<void> {
  const built = process.argv.includes('--built');
  const target = built ? await outOfProcess() : await inProcess();
  try {
    // Warm both up, then measure baseline and account alternately and take medians.
    await run(target.bareUrl, null, 2, 10);
    await run(target.accountUrl, await target.keysForRun(), 2, 10);
    const bare: autocannon.Result[] = [];
    const account: autocannon.Result[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const keys = await target.keysForRun();
      bare.push(await run(target.bareUrl, null));
      account.push(await run(target.accountUrl, keys));
    }
    const errors = account.reduce((n, r) => n + r.errors + r.non2xx, 0);
    const b = median(bare.map((r) => r.requests.average));
    const a = median(account.map((r) => r.requests.average));
    const runs = (rs: autocannon.Result[]) => rs.map((r) => r.requests.average.toFixed(0)).join(', ');
    console.log(built ? 'out-of-process: built service (start:prod, default settings)' : 'in-process (ts-node)');
    console.log(
      `baseline  GET /bare              ${b.toFixed(0)} req/s  p99 ${median(bare.map((r) => r.latency.p99))} ms  runs: ${runs(bare)}`,
    );
    console.log(
      `service   GET /api/v2/account    ${a.toFixed(0)} req/s  p99 ${median(account.map((r) => r.latency.p99))} ms  runs: ${runs(account)}  (non-2xx/errors: ${errors})`,
    );
    const ratio = a / b;
    const pass = ratio >= TARGET && errors === 0;
    console.log(
      `ratio     ${(ratio * 100).toFixed(1)}% of baseline (target >= ${TARGET * 100}%) -> ${pass ? 'PASS' : 'FAIL'}`,
    );
  } finally {
    target.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
