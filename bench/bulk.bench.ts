// npm run bench:bulk [-- --dialect=sqlite|mysql|both --rows=100000,1000000 --accounts=200 --seconds=10]
// npm run bench:bulk -- --tenants=1000 [--tenant-rows=300] runs only the many-tenant scenario (bulk-tenants.ts);
// with --backlog, the jobs are accepted with no loop running and then validated in one pass (across-jobs validation rate);
// with --built [--replicas=2] (MariaDB; `npm run build` first), black-box against the built service (bulk-tenants-built.ts).
// --subscribe: every dispatch account has an event endpoint subscribed to `message.*` (the fan-out's cost;
// deliveries are written to the outbox, the delivery worker is not running).
// (BENCH_CPU_PROF=dir writes a V8 CPU profile of each dialect's child there.)
// Each dialect runs in its own child process (clean RSS figures): intake over HTTP (streamed body) with
// peak RSS, the raw multi-row INSERT rate measured in the same run, validation rows/s, a dry run
// (POST /messages/bulk/validate) of the largest size, the CSV export of the largest job (rows/s and
// RSS growth), and paced dispatch of N accounts x 10 msg/s on the sandbox with per-job one-second-window maxima.
import 'reflect-metadata';
import { benchDatabase, countStatements } from './bench-database';
import { fork } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { DataSource } from 'typeorm';
import { downloadCsv, element, postBulk } from './bulk-clients';
import { accountIdOf } from '../src/common/account-id';

const args = Object.fromEntries(
  process.argv
    .slice(2)
    .filter((a) => a.startsWith('--'))
    .map((a) => a.slice(2).split('=') as [string, string]),
);
const MYSQL_URL = process.env.BENCH_MYSQL_URL || 'mysql://root@127.0.0.1:3306/x';

async function parent(): Promise<void> {
  const dialects = (args.dialect ?? 'both') === 'both' ? ['sqlite', 'mysql'] : [args.dialect];
  if (args.tenants && 'built' in args) {
    if (args.dialect !== 'mysql') throw new Error('--built runs on MariaDB only: add --dialect=mysql');
    const { builtTenantScenario } = await import('./bulk-tenants-built');
    const opts = { tenants: Number(args.tenants), rows: Number(args['tenant-rows'] ?? 300) };
    return builtTenantScenario({ mysqlUrl: MYSQL_URL, ...opts, replicas: Number(args.replicas ?? 1) });
  }
  for (const d of dialects) {
    await new Promise<void>((resolve, reject) => {
      const child = fork(__filename, [...process.argv.slice(2), `--child=${d}`], {
        execArgv: [
          '-r',
          'ts-node/register/transpile-only',
          '--max-old-space-size=1024',
          '--max-semi-space-size=64',
          ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
        ],
        stdio: 'inherit',
      });
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${d} bench exited with ${code}`))));
    });
  }
}

// ---------------------------------------------------------------- child
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;

class RssSampler {
  peak = 0;
  private timer: NodeJS.Timeout;
  constructor() {
    this.peak = process.memoryUsage().rss;
    this.timer = setInterval(() => (this.peak = Math.max(this.peak, process.memoryUsage().rss)), 20);
  }
  stop(): number {
    clearInterval(this.timer);
    return Math.max(this.peak, process.memoryUsage().rss);
  }
}

async function rawInsertRate(ds: DataSource, mysql: boolean, rows: number): Promise<number> {
  await ds.query('DROP TABLE IF EXISTS bench_raw');
  await ds.query(
    `CREATE TABLE bench_raw (job_id varchar(40) NOT NULL, idx int NOT NULL, status varchar(10) NOT NULL, to_addr varchar(320), channel varchar(32), payload ${mysql ? 'mediumtext' : 'text'} NOT NULL, attempt int NOT NULL, PRIMARY KEY (job_id, idx))`,
  );
  const batch = 1000;
  const t0 = performance.now();
  if (mysql) {
    for (let i = 0; i < rows; i += batch) {
      const params: unknown[] = [];
      const n = Math.min(batch, rows - i);
      for (let k = 0; k < n; k++)
        params.push('bulk_raw', i + k, 'pending', '+966501234567', 'local_sms', element(i + k), 0);
      await ds.query(`INSERT INTO bench_raw VALUES ${Array(n).fill('(?,?,?,?,?,?,?)').join(',')}`, params);
    }
  } else {
    const db = (
      ds.driver as unknown as {
        databaseConnection: {
          prepare(s: string): { run(...p: unknown[]): void };
          transaction(f: () => void): () => void;
        };
      }
    ).databaseConnection;
    const stmt = db.prepare('INSERT INTO bench_raw VALUES (?,?,?,?,?,?,?)');
    db.transaction(() => {
      for (let i = 0; i < rows; i++) stmt.run('bulk_raw', i, 'pending', '+966501234567', 'local_sms', element(i), 0);
    })();
  }
  const rate = rows / ((performance.now() - t0) / 1000);
  await ds.query('DROP TABLE bench_raw');
  return rate;
}

async function child(dialect: string): Promise<void> {
  const mysql = dialect === 'mysql';
  const { databaseUrl, drop: dropDb } = await benchDatabase('bench-bulk', mysql ? MYSQL_URL : null);
  Object.assign(process.env, {
    DATABASE_URL: databaseUrl,
    ADMIN_TOKEN: 'bench-admin-token-0123456789',
    LOG_LEVEL: 'silent',
    DEMO_ACCOUNT: 'false',
    THROTTLE_LIMIT: '100000000',
    // The many-tenant scenario runs the background loops as production does; the other phases drive them.
    SCHEDULERS_ENABLED: args.tenants && !('backlog' in args) ? 'true' : 'false',
    DB_POOL_SIZE: '40',
    PORT: '0',
    ...('subscribe' in args ? { WEBHOOK_ALLOW_INSECURE: 'true' } : {}),
  });
  const { createApp } = await import('../src/bootstrap');
  const app: NestExpressApplication = await createApp();
  app.useLogger(false);
  await app.listen(0, '127.0.0.1');
  const port = (app.getHttpServer().address() as AddressInfo).port;
  const { AccountsService } = await import('../src/accounts/accounts.service');
  const { BulkValidationLoop } = await import('../src/bulk/bulk-validation.loop');
  const { BulkDispatcher } = await import('../src/bulk/bulk-dispatcher');
  const { UnitOfWork } = await import('../src/database/unit-of-work');
  const { DataSource: DS } = await import('typeorm');
  const ds = app.get(DS);
  const accounts = app.get(AccountsService);
  const label = mysql ? 'MariaDB' : 'SQLite';
  console.log(`\n=== ${label} ===`);
  if (mysql) {
    // The server's version and buffer pool: figures of a server left at its 128 MiB default and of one sized to the working set differ.
    const [{ v, pool }]: { v: string; pool: number | string }[] = await ds.query(
      'SELECT @@version AS v, @@innodb_buffer_pool_size AS pool',
    );
    console.log(`server: ${v}, InnoDB buffer pool ${Math.round(Number(pool) / 2 ** 20)} MiB`);
  }

  try {
    if (args.tenants) {
      const { tenantScenario, backlogScenario } = await import('./bulk-tenants');
      const scenario = {
        ds,
        port,
        tenants: Number(args.tenants),
        rows: Number(args['tenant-rows'] ?? 300),
        createAccount: async (i: number) =>
          (await accounts.create({ name: `Tenant ${i}`, walletBalance: 1_000_000 })).apiKey.key,
      };
      if ('backlog' in args)
        await backlogScenario({ ...scenario, validateAll: () => app.get(BulkValidationLoop).runOnce() });
      else await tenantScenario(scenario);
      return;
    }
    // --- intake
    const sizes = (args.rows ?? '100000,1000000').split(',').map(Number);
    const { apiKey } = await accounts.create({ name: 'Bench intake', walletBalance: 1_000_000_000 });
    let validationJob: string | null = null;
    let largest: { id: string; rows: number } | null = null;
    for (const rows of sizes) {
      global.gc?.();
      const raw = await rawInsertRate(ds, mysql, Math.min(rows, 200_000));
      const before = process.memoryUsage().rss;
      const sampler = new RssSampler();
      const res = await postBulk(port, apiKey.key, rows);
      const secs = res.secs;
      const peak = sampler.stop();
      if (res.status !== 202) throw new Error(`intake ${res.status} ${JSON.stringify(res.body)}`);
      console.log(
        `intake ${fmt(rows)} rows: ${secs.toFixed(2)} s, ${fmt(rows / secs)} rows/s (raw ${mysql ? 'multi-row INSERT' : 'prepared INSERT'} here: ${fmt(raw)} rows/s, ${((rows / secs / raw) * 100).toFixed(0)}%), peak RSS ${mb(peak)} (before ${mb(before)})`,
      );
      validationJob ??= String(res.body.id);
      if (!largest || rows > largest.rows) largest = { id: String(res.body.id), rows };
    }

    // --- validation of the first (smallest) job
    if (validationJob) {
      const loop = app.get(BulkValidationLoop);
      const [job] = await ds.query('SELECT total FROM bulk_jobs WHERE id = ?', [validationJob]);
      await ds.query("UPDATE bulk_jobs SET status = 'cancelled' WHERE status = 'validating' AND id <> ?", [
        validationJob,
      ]);
      const t0 = performance.now();
      await loop.runOnce();
      const secs = (performance.now() - t0) / 1000;
      const [after] = await ds.query('SELECT status, validated_count FROM bulk_jobs WHERE id = ?', [validationJob]);
      console.log(
        `validation ${fmt(Number(job.total))} rows: ${secs.toFixed(2)} s, ${fmt(Number(job.total) / secs)} rows/s (job ${after.status}, validatedCount ${after.validated_count})`,
      );
      await ds.query("UPDATE bulk_jobs SET status = 'cancelled' WHERE id = ?", [validationJob]);
    }

    // --- dry run (POST /messages/bulk/validate) of the largest size: streamed, validated, nothing stored
    if (largest) {
      global.gc?.();
      const before = process.memoryUsage().rss;
      const sampler = new RssSampler();
      const res = await postBulk(port, apiKey.key, largest.rows, 10, 'unused', '/api/v2/messages/bulk/validate');
      const peak = sampler.stop();
      const data = res.body.data as { valid?: number } | undefined;
      if (res.status !== 200 || data?.valid !== largest.rows)
        throw new Error(`dry run ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
      console.log(
        `dry run ${fmt(largest.rows)} rows: ${res.secs.toFixed(2)} s, ${fmt(largest.rows / res.secs)} rows/s (target >= 50,000), peak RSS ${mb(peak)} (before ${mb(before)})`,
      );
    }

    // --- CSV export of the largest job, its rows made to look sent (message id, time) first
    if (largest) {
      await ds.query("UPDATE bulk_jobs SET status = 'completed' WHERE id = ?", [largest.id]);
      await ds.query(
        "UPDATE bulk_rows SET status = 'sent', message_id = 'msg_01jd8x2m0a1b2c3d4e5f6g7h', sent_at = ? WHERE job_id = ?",
        [Date.now(), largest.id],
      );
      global.gc?.();
      const before = process.memoryUsage().rss;
      const sampler = new RssSampler();
      const res = await downloadCsv(port, apiKey.key, largest.id);
      const peak = sampler.stop();
      if (res.status !== 200 || !res.complete || res.lines !== largest.rows + 1)
        throw new Error(`export ${JSON.stringify(res)}`);
      console.log(
        `export ${fmt(largest.rows)} rows as CSV: ${res.secs.toFixed(2)} s, ${fmt(largest.rows / res.secs)} rows/s, ${mb(res.bytes)} (target < 30 s); ` +
          `RSS growth ${mb(peak - before)} (peak ${mb(peak)}, before ${mb(before)}; target < 100 MB)`,
      );
    }

    // --- dispatch: N accounts x 10/s
    const nAcc = Number(args.accounts ?? 200);
    const seconds = Number(args.seconds ?? 10);
    // (The steady-state window skips the first and the last second.)
    if (!(seconds >= 3)) throw new Error('--seconds must be at least 3');
    const perJob = 10 * seconds;
    const jobIds: string[] = [];
    const { EventEndpointsService } = await import('../src/webhooks/event-endpoints.service');
    const endpoints = app.get(EventEndpointsService);
    for (let a = 0; a < nAcc; a++) {
      const acc = await accounts.create({ name: `Bench ${a}`, walletBalance: 1_000_000 });
      if ('subscribe' in args)
        await endpoints.create(accountIdOf(acc.account.id), { url: 'http://127.0.0.1:9/hook', events: ['message.*'] });
      const res = await postBulk(port, acc.apiKey.key, perJob, 10);
      jobIds.push(String(res.body.id));
    }
    const loop = app.get(BulkValidationLoop);
    while (Number((await ds.query("SELECT COUNT(*) AS n FROM bulk_jobs WHERE status = 'validating'"))[0].n) > 0)
      await loop.runOnce();
    const dispatcher = app.get(BulkDispatcher);
    const bulkDb = app.get(UnitOfWork);
    // Statements the dispatch issued: transaction control (BEGIN/START TRANSACTION/COMMIT/ROLLBACK)
    // is left out on both dialects (better-sqlite3 transactions of BulkDb never reach the logger, so
    // counting it on MySQL only would not compare), and so is this benchmark's own progress poll.
    let polling = false;
    const counted = countStatements(ds, () => polling);
    const bulkBefore = bulkDb.statements;
    const t0 = Date.now();
    const timer = setInterval(() => void dispatcher.tick(), 50);
    await dispatcher.tick();
    const placeholders = jobIds.map(() => '?').join(',');
    for (;;) {
      await new Promise((r) => setTimeout(r, 250));
      polling = true;
      const [{ n }] = await ds
        .query(
          `SELECT COUNT(*) AS n FROM bulk_jobs WHERE id IN (${placeholders}) AND status NOT IN ('completed', 'cancelled')`,
          jobIds,
        )
        .finally(() => (polling = false));
      if (Number(n) === 0 || Date.now() - t0 > seconds * 4000 + 30000) break;
    }
    clearInterval(timer);
    counted.stop();
    const rows: { bulk_job_id: string; delivered_at: number | string }[] = await ds.query(
      `SELECT bulk_job_id, delivered_at FROM sandbox_deliveries WHERE outcome = 'sent' AND bulk_job_id IN (${placeholders})`,
      jobIds,
    );
    const byJob = new Map<string, number[]>();
    for (const r of rows) {
      const list = byJob.get(r.bulk_job_id) ?? [];
      list.push(Number(r.delivered_at));
      byJob.set(r.bulk_job_id, list);
    }
    const all = rows.map((r) => Number(r.delivered_at)).sort((a, b) => a - b);
    const span = (all[all.length - 1] - all[0]) / 1000;
    let worstRate = Infinity;
    let worstWindow = 0;
    for (const times of byJob.values()) {
      times.sort((a, b) => a - b);
      const rate = times.length > 1 ? (times.length - 1) / ((times[times.length - 1] - times[0]) / 1000) : 0;
      worstRate = Math.min(worstRate, rate);
      let j = 0;
      for (let i = 0; i < times.length; i++) {
        while (times[i] - times[j] >= 1000) j++;
        worstWindow = Math.max(worstWindow, i - j + 1);
      }
    }
    const sent = rows.length;
    const ceiling = nAcc * 10;
    // Aggregate rate in steady state: deliveries inside [first + 1 s, first + (seconds - 1) s], i.e.
    // skipping ramp-up and tail. (Messages / first-to-last span over-reads: N paced sends span (N-1)/rate.)
    const winStart = all[0] + 1000;
    const winEnd = all[0] + (seconds - 1) * 1000;
    const inWindow = all.filter((t) => t >= winStart && t < winEnd).length;
    const steady = inWindow / ((winEnd - winStart) / 1000);
    const statements = mysql ? counted.statements : counted.statements + (bulkDb.statements - bulkBefore);
    console.log(
      `dispatch ${nAcc} accounts x 10/s${'subscribe' in args ? ' (message.* subscribed)' : ''}, ${fmt(sent)} messages in ${span.toFixed(2)} s: steady-state aggregate ${fmt(steady)}/s = ${((steady / ceiling) * 100).toFixed(1)}% of ${fmt(ceiling)}/s; ` +
        `worst job ${worstRate.toFixed(2)}/s; max sends of one job in any 1 s window: ${worstWindow} (ceiling 10)${worstWindow > 10 ? '  <-- OVER' : ''}`,
    );
    console.log(
      `dispatch database cost: ${(statements / sent).toFixed(2)} statements/message, transaction control not counted (bulk module: ${((bulkDb.statements - bulkBefore) / sent).toFixed(2)})`,
    );
  } finally {
    await app.close();
    await dropDb();
  }
}

if (args.child) {
  child(args.child)
    .then(() => process.exit(0))
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
} else {
  parent().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
