// npm run bench:memory [-- --rows=1000000 --dialect=sqlite|mysql|both --node-options="--max-semi-space-size=64"]
// Peak memory of the built service (`npm run build` first) running one large bulk job, measured from
// outside: the service is started as `npm run start:prod` starts it (the node flags of that script,
// default settings, a fresh database), a job of `rows` rows is streamed to it, and once validation has
// finished and the job has sent for `--dispatch` seconds (default 5) the service's peak resident set
// (VmHWM in /proc/<pid>/status, which the kernel keeps) is read. --node-options adds NODE_OPTIONS (to
// compare a setting such as a larger young generation); --node-flags="..." replaces the script's flags.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { benchDatabase } from './bench-database';
import { freePort, ROOT, startProdFlags, waitUntilLive } from './built-service';
import { postBulk } from './bulk-clients';

const args = Object.fromEntries(
  process.argv
    .slice(2)
    .filter((a) => a.startsWith('--'))
    .map((a) => [a.slice(2, a.indexOf('=') < 0 ? undefined : a.indexOf('=')), a.slice(a.indexOf('=') + 1)]),
);
const MYSQL_URL = process.env.BENCH_MYSQL_URL || 'mysql://root@127.0.0.1:3306/x';
const TOKEN = 'bench-admin-token-0123456789';
const ROWS = Number(args.rows ?? 1_000_000);
const DISPATCH_S = Number(args.dispatch ?? 5);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

function request(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; body: { data?: Record<string, unknown> } & Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: { ...headers, ...(text ? { 'Content-Type': 'application/json' } : {}) },
      },
      (res) => {
        let data = '';
        res.on('data', (c) => (data += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data ? JSON.parse(data) : {} }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

/** VmHWM (peak) and VmRSS (now) of a process, in MB. */
function memoryOf(pid: number): { peak: number; now: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { peak: kb('VmHWM') / 1024, now: kb('VmRSS') / 1024 };
}

const until = async (what: string, ok: () => Promise<boolean>, ms: number) => {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
};

async function run(dialect: string): Promise<void> {
  const mysql = dialect === 'mysql';
  const { databaseUrl, drop } = await benchDatabase('bench-memory', mysql ? MYSQL_URL : null);
  const port = await freePort();
  const flags = args['node-flags'] !== undefined ? args['node-flags'].split(/\s+/).filter(Boolean) : startProdFlags();
  const nodeOptions = args['node-options'] ?? '';
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATABASE_URL: databaseUrl,
    ADMIN_TOKEN: TOKEN,
    PORT: String(port),
    DEMO_ACCOUNT: 'false',
    LOG_LEVEL: 'warn',
    ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
  };
  const child = spawn(process.execPath, [...flags, 'dist/src/main.js'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitUntilLive(`http://127.0.0.1:${port}/health/ready`, child);
    const idle = memoryOf(child.pid!);
    const created = await request(
      port,
      'POST',
      '/admin/v1/accounts',
      { Authorization: `Bearer ${TOKEN}` },
      { name: 'Memory bench', walletBalance: 1_000_000_000 },
    );
    if (created.status !== 201) throw new Error(`account: ${created.status} ${JSON.stringify(created.body)}`);
    const key = String((created.body.data?.apiKey as { key: string }).key);
    const t0 = performance.now();
    const res = await postBulk(port, key, ROWS, 10);
    if (res.status !== 202) throw new Error(`bulk: ${res.status} ${JSON.stringify(res.body)}`);
    const jobId = String(res.body.id);
    const afterIntake = memoryOf(child.pid!);
    let status = '';
    await until(
      'validation',
      async () => {
        const job = await request(port, 'GET', `/api/v2/messages/bulk/${jobId}`, { 'X-API-Key': key });
        status = String((job.body.job as { status?: string } | undefined)?.status);
        return status !== 'validating';
      },
      600_000,
    );
    const validated = (performance.now() - t0) / 1000;
    await new Promise((r) => setTimeout(r, DISPATCH_S * 1000));
    const end = memoryOf(child.pid!);
    console.log(
      `${mysql ? 'MariaDB' : 'SQLite'}: node ${[...flags, nodeOptions].filter(Boolean).join(' ') || '(no flags)'}, ` +
        `${fmt(ROWS)} rows: intake ${res.secs.toFixed(1)} s, validated (${status}) after ${validated.toFixed(1)} s; ` +
        `RSS idle ${fmt(idle.now)} MB, after intake ${fmt(afterIntake.now)} MB, now ${fmt(end.now)} MB; ` +
        `peak (VmHWM) ${fmt(end.peak)} MB (target <= 350 MB)`,
    );
  } finally {
    child.kill('SIGTERM');
    await exited;
    await drop();
  }
}

async function main(): Promise<void> {
  const dialects = (args.dialect ?? 'both') === 'both' ? ['sqlite', 'mysql'] : [args.dialect];
  for (const d of dialects) await run(d);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
