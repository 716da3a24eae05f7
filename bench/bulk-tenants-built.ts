// `npm run build && npm run bench:bulk -- --dialect=mysql --tenants=N --built [--replicas=2] [--tenant-rows=300]`:
// the many-tenant scenario (tenant-jobs.ts) black-box against the built service. Each replica is
// started as `npm run start:prod` starts it (`node <flags> dist/src/main.js`, default settings, info
// logging to a file) on one fresh MariaDB database, each on its own port; the accounts are created
// through the operator API and tenant t submits to replica t % replicas. Measured from outside: the
// send figures read from the database, the CPU of each replica and of the local MariaDB server
// (/proc), and the server's statement counters (SHOW GLOBAL STATUS: every session's, so another
// client of the same server is counted too; the benchmark's own reads are left out).
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, openSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPool } from 'mysql2/promise';
import { benchDatabase, handlerCounts, localServerCpu, processCpu } from './bench-database';
import { freePort, ROOT, startProdFlags, waitUntilLive } from './built-service';
import { fmt, MPS, reportSends, runJobs, SqlReader } from './tenant-jobs';

const ADMIN_TOKEN = 'bench-admin-token-0123456789';

interface Replica {
  port: number;
  proc: ChildProcess;
  exited: Promise<void>;
}

async function startReplica(databaseUrl: string, logFile: string): Promise<Replica> {
  const port = await freePort();
  const proc = spawn(process.execPath, [...startProdFlags(), join('dist', 'src', 'main.js')], {
    cwd: ROOT,
    // Default settings but the port, the database, an admin token to create accounts with, and no demo account.
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      ADMIN_TOKEN,
      DEMO_ACCOUNT: 'false',
    },
    stdio: ['ignore', openSync(logFile, 'w'), 'inherit'],
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  await waitUntilLive(`http://127.0.0.1:${port}/health/ready`, proc);
  return { port, proc, exited };
}

/** Creates `n` accounts through the operator API (10 at a time) and returns their API keys. */
async function createAccounts(port: number, n: number): Promise<string[]> {
  const keys = new Array<string>(n);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < n; i = next++) {
      const res = await fetch(`http://127.0.0.1:${port}/admin/v1/accounts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Tenant ${i}`, walletBalance: 1_000_000 }),
      });
      if (res.status !== 201) throw new Error(`creating an account answered ${res.status}: ${await res.text()}`);
      keys[i] = ((await res.json()) as { data: { apiKey: { key: string } } }).data.apiKey.key;
    }
  };
  await Promise.all(Array.from({ length: 10 }, worker));
  return keys;
}

const STATUS = [
  'Questions',
  'Com_select',
  'Com_insert',
  'Com_insert_select',
  'Com_replace',
  'Com_update',
  'Com_update_multi',
  'Com_delete',
  'Com_delete_multi',
  'Com_begin',
  'Com_commit',
  'Com_rollback',
];

/** The server's statement counters (all sessions): data statements, transaction control, all client statements. */
async function statementCounts(db: SqlReader): Promise<{ data: number; tx: number; questions: number }> {
  const rows = (await db.query(
    `SHOW GLOBAL STATUS WHERE Variable_name IN (${STATUS.map(() => '?').join(',')})`,
    STATUS,
  )) as { Variable_name: string; Value: string }[];
  const v = (name: string) =>
    Number(rows.find((r) => r.Variable_name.toLowerCase() === name.toLowerCase())?.Value ?? 0);
  const sum = (...names: string[]) => names.reduce((n, name) => n + v(name), 0);
  return {
    data: sum(...STATUS.slice(1, 9)),
    tx: sum('Com_begin', 'Com_commit', 'Com_rollback'),
    questions: v('Questions'),
  };
}

/** Sessions on the server other than this benchmark's database's: their work is in the server-wide figures too. */
async function otherSessions(db: SqlReader): Promise<number> {
  const [{ n }] = (await db.query(
    "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE COALESCE(DB, '') <> DATABASE() AND COMMAND <> 'Daemon'",
  )) as { n: number | string }[];
  return Number(n);
}

export async function builtTenantScenario(opts: {
  mysqlUrl: string;
  tenants: number;
  rows: number;
  replicas: number;
}): Promise<void> {
  const { tenants, rows, replicas } = opts;
  const main = join(ROOT, 'dist', 'src', 'main.js');
  if (!existsSync(main)) throw new Error('dist/src/main.js is missing: run `npm run build` first');
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  const { databaseUrl, drop } = await benchDatabase('bench-tenants-built', opts.mysqlUrl);
  const dir = mkdtempSync(join(tmpdir(), 'bench-tenants-built-'));
  const started: Replica[] = [];
  // A pool, not one connection: a connection the server drops (another client's test may kill sessions) is replaced.
  const pool = createPool({ uri: databaseUrl, connectionLimit: 2 });
  const db: SqlReader = { query: async (sql, params) => (await pool.query(sql, params))[0] };
  try {
    // One after the other: the first applies the migrations.
    for (let i = 0; i < replicas; i++) started.push(await startReplica(databaseUrl, join(dir, `service-${i}.log`)));
    const [{ v, pool }] = (await db.query('SELECT @@version AS v, @@innodb_buffer_pool_size AS pool')) as {
      v: string;
      pool: number | string;
    }[];
    console.log(`\n=== MariaDB, built service, ${replicas} replica${replicas > 1 ? 's' : ''} ===`);
    console.log(
      `server: ${v}, InnoDB buffer pool ${Math.round(Number(pool) / 2 ** 20)} MiB; node ${[...startProdFlags(), 'dist/src/main.js'].join(' ')}; logs in ${dir}`,
    );
    const keys = await createAccounts(started[0].port, tenants);
    console.log(
      `tenants: ${fmt(tenants)} accounts x ${rows} rows at ${MPS}/s each (ceiling ${fmt(tenants * MPS)}/s), submitted at once over 50 connections, round-robin over ${replicas} replica(s); load average ${load()}`,
    );
    const serverCpu = localServerCpu();
    const replicaCpu = () => started.map((r) => processCpu(r.proc.pid ?? 0));
    const others = await otherSessions(db);
    const at = {
      server: serverCpu?.() ?? 0,
      replicas: replicaCpu(),
      bench: process.cpuUsage(),
      statements: await statementCounts(db),
      rows: await handlerCounts(db, true),
    };
    const run = await runJobs(
      db,
      started.map((r) => r.port),
      keys,
      rows,
    );
    const serverSeconds = serverCpu ? serverCpu() - at.server : null;
    const replicaSeconds = replicaCpu().map((s, i) => s - at.replicas[i]);
    const benchCpu = process.cpuUsage(at.bench);
    const statements = await statementCounts(db);
    const rowsAtEnd = await handlerCounts(db, true);
    const othersAtEnd = await otherSessions(db);
    const { sent, best } = await reportSends(db, run, rows);
    const per = (n: number) => (n / Math.max(1, sent)).toFixed(2);
    const usPerMessage = (seconds: number) => Math.round((seconds * 1e6) / Math.max(1, sent));
    const us = (seconds: number) => fmt(usPerMessage(seconds));
    const serviceSeconds = replicaSeconds.reduce((a, b) => a + b, 0);
    const benchSeconds = (benchCpu.user + benchCpu.system) / 1e6;
    // This benchmark's own statements between the two readings are left out: its progress reads, and
    // the handler counters' SHOW and the closing SHOW for Questions.
    const data = statements.data - at.statements.data - run.ownQueries;
    const tx = statements.tx - at.statements.tx;
    const questions = statements.questions - at.statements.questions - run.ownQueries - 2;
    console.log(
      `tenants: statements per message sent, server-wide (Com_select/insert/update/delete/replace, multi-table and INSERT ... SELECT included): ${per(data)}; transaction control (Com_begin/commit/rollback) ${per(tx)}; all client statements (Questions, SET and SHOW included) ${per(questions)}`,
    );
    console.log(
      `tenants: CPU per message sent: the service ${us(serviceSeconds)} us (${replicaSeconds.map((s) => s.toFixed(1)).join(' + ')} s), the local MariaDB server ${serverSeconds === null ? 'not found' : `${us(serverSeconds)} us (${serverSeconds.toFixed(1)} s)`}, this benchmark (client and reads) ${us(benchSeconds)} us (${benchSeconds.toFixed(1)} s)`,
    );
    if (at.rows && rowsAtEnd) {
      const d = (k: keyof typeof rowsAtEnd) => per(rowsAtEnd[k] - (at.rows?.[k] ?? 0));
      console.log(
        `tenants: server rows per message sent: ${d('written')} written, ${d('read')} read (${d('scanned')} of them by scans), ${d('tmp')} to temporary tables (this benchmark's progress reads included)`,
      );
    }
    console.log(
      `tenants: other sessions on the server (counted in its CPU and statements too): ${others} at the start, ${othersAtEnd} at the end; load average ${load()}`,
    );
    console.log(
      `tenants: summary ${JSON.stringify({ replicas, best: Math.round(best), sent, statements: Number(per(data)), serviceUs: usPerMessage(serviceSeconds), serverUs: serverSeconds === null ? null : usPerMessage(serverSeconds) })}`,
    );
  } finally {
    for (const r of started) r.proc.kill('SIGTERM');
    await Promise.all(started.map((r) => r.exited));
    await pool.end();
    await drop();
  }
}
