// npm run bench:retention [-- --dialect=sqlite|mysql|both --messages=2000000 --accounts=200 --rate=10 --window=15
//                            --dispatch=bulk|single
//                            --batch --share --busy-share --streams (RETENTION_PURGE_*)]
// The retention purger (issue 29) in the service's own process, each dialect in a child process:
// 1. seeds `messages` expired, settled and counted messages over `accounts` accounts, each with two
//    status-history rows and a provider id (fast multi-row INSERTs);
// 2. dispatch baseline: every account sends `rate` messages a second for `window` seconds (no purger):
//    with --dispatch=bulk (the default) a bulk job of rate x window rows at messagesPerSecond = rate each,
//    paced by the dispatcher (the steady-state aggregate, as bench:bulk measures it); with
//    --dispatch=single one POST /api/v2/messages/send per message;
// 3. the same dispatch for `window` seconds while the purger deletes the backlog, then the purger alone
//    until the backlog is gone: messages purged per second (with their history and refs), and the
//    dispatch rate with the purger as a share of the baseline (target >= 95%).
import 'reflect-metadata';
import { fork } from 'node:child_process';
import http from 'node:http';
import { benchDatabase } from './bench-database';
import { postBulk } from './bulk-clients';
import { decoders, query, sql } from '../src/database/sql';

const args = Object.fromEntries(
  process.argv
    .slice(2)
    .filter((a) => a.startsWith('--'))
    .map((a) => [a.slice(2, a.indexOf('=') < 0 ? undefined : a.indexOf('=')), a.slice(a.indexOf('=') + 1)]),
);
const MYSQL_URL = process.env.BENCH_MYSQL_URL || 'mysql://root@127.0.0.1:3306/x';
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const DAY = 86_400_000;

async function parent(): Promise<void> {
  const dialects = (args.dialect ?? 'both') === 'both' ? ['sqlite', 'mysql'] : [args.dialect];
  for (const d of dialects)
    await new Promise<void>((resolve, reject) => {
      const child = fork(__filename, [...process.argv.slice(2), `--child=${d}`], {
        execArgv: ['-r', 'ts-node/register/transpile-only', '--max-semi-space-size=64'],
        stdio: 'inherit',
      });
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${d} bench exited with ${code}`))));
    });
}

async function child(dialect: string): Promise<void> {
  const mysql = dialect === 'mysql';
  const total = Number(args.messages ?? 2_000_000);
  const accounts = Number(args.accounts ?? 200);
  const rate = Number(args.rate ?? 10);
  const windowS = Number(args.window ?? 15);
  const soakMinutes = Number(args.soak ?? 0);
  const { databaseUrl, drop } = await benchDatabase('bench-retention', mysql ? MYSQL_URL : null, 'utf8mb4_unicode_ci');
  Object.assign(process.env, {
    DATABASE_URL: databaseUrl,
    ADMIN_TOKEN: 'bench-admin-token-0123456789',
    LOG_LEVEL: 'silent',
    DEMO_ACCOUNT: 'false',
    // The soak runs the service as deployed (roll-up, purger, receipts on their ticks), a day lasting a minute.
    ...(soakMinutes
      ? {
          SCHEDULERS_ENABLED: 'true',
          RETENTION_DAY_MS: '60000',
          RETENTION_MESSAGES_DAYS: '1',
          RETENTION_BULK_JOBS_DAYS: '1',
          RETENTION_INBOUND_DAYS: '1',
          RETENTION_SANDBOX_DAYS: '1',
          RETENTION_PURGE_TICK_MS: '10000',
          USAGE_ROLLUP_TICK_MS: '5000',
        }
      : { SCHEDULERS_ENABLED: 'false' }),
    THROTTLE_LIMIT: '100000000',
    DB_POOL_SIZE: '20',
    PORT: '0',
    ...(args.batch ? { RETENTION_PURGE_BATCH: args.batch } : {}),
    ...(args.share ? { RETENTION_PURGE_SHARE: args.share } : {}),
    ...(args['busy-share'] ? { RETENTION_PURGE_BUSY_SHARE: args['busy-share'] } : {}),
    ...(args.streams ? { RETENTION_PURGE_STREAMS: args.streams } : {}),
  });
  const { createApp } = await import('../src/bootstrap');
  const app = await createApp();
  app.useLogger(false);
  await app.listen(0, '127.0.0.1');
  const port = (app.getHttpServer().address() as { port: number }).port;
  const { AccountsService } = await import('../src/accounts/accounts.service');
  const { UnitOfWork } = await import('../src/database/unit-of-work');
  const { RetentionPurger } = await import('../src/privacy/retention/retention-purger');
  const { AppConfig } = await import('../src/config/app-config');
  const { derivedId } = await import('../src/common/ids');
  const uow = app.get(UnitOfWork);
  if (args.pragma && !mysql) {
    const { SqliteGate } = await import('../src/database/sqlite-gate');
    const { DataSource } = await import('typeorm');
    console.log(args.pragma, SqliteGate.of(app.get(DataSource))?.conn.pragma(args.pragma));
  }
  const label = mysql ? 'MariaDB' : 'SQLite';
  console.log(
    `\n=== ${label}: ${soakMinutes ? 'soak' : `${fmt(total)} expired messages`} over ${accounts} accounts, RETENTION_PURGE_BATCH ${app.get(AppConfig).retention.purgeBatch}, RETENTION_PURGE_SHARE ${app.get(AppConfig).retention.purgeShare}, RETENTION_PURGE_BUSY_SHARE ${app.get(AppConfig).retention.purgeBusyShare}, RETENTION_PURGE_STREAMS ${app.get(AppConfig).retention.purgeStreams} ===`,
  );
  try {
    const owners: { id: string; key: string }[] = [];
    for (let i = 0; i < accounts; i++) {
      const { account, apiKey } = await app
        .get(AccountsService)
        .create({ name: `Bench ${i}`, walletBalance: 1_000_000_000 });
      owners.push({ id: account.id, key: apiKey.key });
    }

    const old = Date.now() - 200 * DAY;
    let t0 = performance.now();
    let secs = 0;
    if (!soakMinutes) {
      // 1. Seed: 1,000 messages per unit (three multi-row INSERTs: messages, history, refs).
      t0 = performance.now();
      const PER = 1000;
      for (let start = 0; start < total; start += PER) {
        const m: (string | number)[] = [];
        const h: (string | number)[] = [];
        const r: (string | number)[] = [];
        const n = Math.min(PER, total - start);
        for (let k = 0; k < n; k++) {
          const i = start + k;
          const at = old + i;
          const id = derivedId('msg', at, String(i));
          const acc = owners[i % accounts].id;
          m.push(id, acc, at, at + 1, at + 2);
          h.push(id, at, id, at + 1);
          r.push(`sbx_${i}`, id, acc, at);
        }
        const tuples = (t: string) => Array(n).fill(t).join(', ');
        await uow.transaction(async (tx) => {
          await tx.run({
            sql: `INSERT INTO messages (id, account_id, channel, message_type, recipient, status, cost, paid_from, created_at, updated_at, usage_counted_at, attempts, sequence) VALUES ${tuples("(?, ?, 'local_sms', 'free_text', '+966501234567', 'delivered', 5, 'wallet', ?, ?, ?, 1, 2)")}`,
            params: m,
          });
          await tx.run({
            sql: `INSERT INTO message_status_history (message_id, seq, status, at, source) VALUES ${Array(n).fill("(?, 1, 'sent', ?, 'api'), (?, 2, 'delivered', ?, 'receipt')").join(', ')}`,
            params: h,
          });
          await tx.run({
            sql: `INSERT INTO message_provider_refs (provider_message_id, message_id, account_id, part_index, part_count, status, created_at) VALUES ${tuples("(?, ?, ?, 0, 1, 'delivered', ?)")}`,
            params: r,
          });
        });
        if (process.env.BENCH_PROGRESS && start % 200_000 === 0) console.log(`  seeded ${fmt(start)}`);
      }
      secs = (performance.now() - t0) / 1000;
      console.log(
        `seed: ${fmt(total)} messages (+${fmt(2 * total)} history rows, ${fmt(total)} refs) in ${secs.toFixed(1)} s (${fmt((4 * total) / secs)} rows/s)`,
      );
      if (mysql)
        await uow.run({ sql: 'ANALYZE TABLE messages, message_status_history, message_provider_refs', params: [] });
    }

    // 2./3. Dispatch: each account one request every 1000/rate ms, keep-alive.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
    const body = JSON.stringify({
      to: '+966501234567',
      channel: 'local_sms',
      messageType: 'free_text',
      content: { text: 'Hi' },
    });
    const send = (key: string) =>
      new Promise<boolean>((resolve) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            path: '/api/v2/messages/send',
            method: 'POST',
            agent,
            headers: {
              'Content-Type': 'application/json',
              'Content-Length': Buffer.byteLength(body),
              'X-API-Key': key,
            },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode === 201));
          },
        );
        req.on('error', () => resolve(false));
        req.end(body);
      });
    const dispatch = async (seconds: number): Promise<{ rate: number; failed: number }> => {
      let ok = 0;
      let failed = 0;
      const end = performance.now() + seconds * 1000;
      const start = performance.now();
      await Promise.all(
        owners.map(async (o, i) => {
          // Spread the accounts over the interval; each sends on its own schedule, never two at once.
          // Open loop until the window ends: a slot missed while a request was out is skipped, not made up.
          let next = start + (i * 1000) / rate / owners.length;
          while (next < end) {
            const wait = next - performance.now();
            if (wait > 0) await new Promise((r) => setTimeout(r, wait));
            if (await send(o.key)) ok++;
            else failed++;
            next += 1000 / rate;
            const now = performance.now();
            if (next < now) next += Math.ceil((now - next) / (1000 / rate)) * (1000 / rate);
          }
        }),
      );
      return { rate: ok / ((performance.now() - start) / 1000), failed };
    };
    const target = accounts * rate;
    const { BulkValidationLoop } = await import('../src/bulk/bulk-validation.loop');
    const { BulkDispatcher } = await import('../src/bulk/bulk-dispatcher');
    /**
     * Bulk dispatch: one job of rate x seconds rows per account at `rate`/s, validated, then paced by the
     * dispatcher (ticked every 50 ms, as the scheduler would); `onStart` runs when sending begins. The
     * steady-state aggregate counts the sandbox's sends in [first + 1 s, first + seconds - 1 s).
     */
    const bulkDispatch = async (seconds: number, onStart: () => void = () => undefined) => {
      const jobIds: string[] = [];
      for (const o of owners) {
        const res = await postBulk(port, o.key, rate * seconds, rate);
        if (res.status !== 202) throw new Error(`bulk intake ${res.status} ${JSON.stringify(res.body)}`);
        jobIds.push(String(res.body.id));
      }
      const q = jobIds.map(() => '?').join(', ');
      const left = async (status: string) =>
        (
          await uow.read(
            query(decoders.n, sql(`SELECT COUNT(*) AS n FROM bulk_jobs WHERE id IN (${q}) AND ${status}`, ...jobIds)),
          )
        )[0];
      while ((await left("status = 'validating'")) > 0) await app.get(BulkValidationLoop).runOnce();
      const dispatcher = app.get(BulkDispatcher);
      const t0 = performance.now();
      onStart();
      const timer = setInterval(() => void dispatcher.tick(), 50);
      await dispatcher.tick();
      while (
        (await left("status NOT IN ('completed', 'cancelled')")) > 0 &&
        performance.now() - t0 < seconds * 4000 + 30_000
      )
        await new Promise((r) => setTimeout(r, 250));
      clearInterval(timer);
      const sentAt = query(
        (r) => Number(r.at),
        sql(
          `SELECT delivered_at AS at FROM sandbox_deliveries WHERE outcome = 'sent' AND bulk_job_id IN (${q})`,
          ...jobIds,
        ),
      );
      const times = (await uow.read(sentAt)).sort((a, b) => a - b);
      const from = times[0] + 1000;
      const to = times[0] + (seconds - 1) * 1000;
      const steady = times.filter((t) => t >= from && t < to).length / ((to - from) / 1000);
      return { rate: steady, failed: accounts * rate * seconds - times.length };
    };
    const bulk = (args.dispatch ?? 'bulk') === 'bulk';
    if (soakMinutes) {
      // Soak: sends for `soak` minutes with a one-minute retention; every growing table's rows each minute.
      const tables = ['messages', 'message_status_history', 'message_provider_refs', 'sandbox_deliveries'];
      tables.push('pending_receipts', 'usage_daily', 'bulk_jobs', 'bulk_rows', 'inbound_sms', 'web_inbound_messages');
      const counts: number[][] = [];
      console.log(
        `soak: ${soakMinutes} min at ${fmt(target)} msg/s offered (${bulk ? 'a bulk job of each account every minute' : 'single sends'}), retention 1 min`,
      );
      console.log(['min', 'sent/s', ...tables].join('\t'));
      // Bulk: every minute each account submits a job of a minute's messages at `rate`/s (20 submissions at
      // a time); the schedulers validate and pace them. Sent: messages created in the minute, counted at its
      // end (none of them can have expired yet).
      const bulkMinute = async () => {
        const start = Date.now();
        for (let i = 0; i < owners.length; i += 20)
          await Promise.all(
            owners.slice(i, i + 20).map(async (o) => {
              const res = await postBulk(port, o.key, rate * 60, rate);
              if (res.status !== 202) throw new Error(`bulk intake ${res.status} ${JSON.stringify(res.body)}`);
            }),
          );
        await new Promise((r) => setTimeout(r, Math.max(0, start + 60_000 - Date.now())));
        const [n] = await uow.read(
          query(decoders.n, sql('SELECT COUNT(*) AS n FROM messages WHERE created_at >= ?', start)),
        );
        return { rate: n / ((Date.now() - start) / 1000) };
      };
      for (let m = 1; m <= soakMinutes; m++) {
        const w = bulk ? await bulkMinute() : await dispatch(60);
        const row: number[] = [];
        for (const t of tables) row.push((await uow.read(query(decoders.n, sql(`SELECT COUNT(*) AS n FROM ${t}`))))[0]);
        counts.push(row);
        console.log([m, fmt(w.rate), ...row.map(fmt)].join('\t'));
      }
      // Plateau: no table grew by more than 10% (and 1,000 rows) over the last half of the run.
      const half = counts[Math.floor(counts.length / 2) - 1] ?? counts[0];
      const last = counts[counts.length - 1];
      const grew = tables.filter((_, k) => last[k] > half[k] * 1.1 && last[k] - half[k] > 1000);
      console.log(grew.length ? `still growing: ${grew.join(', ')}` : 'every table plateaued over the second half');
      agent.destroy();
      return;
    }
    const how = bulk ? 'bulk jobs, steady-state aggregate' : 'single sends';
    const load = loadMeter();
    const base = bulk ? await bulkDispatch(windowS) : await dispatch(windowS);
    console.log(
      `dispatch without the purger (${how}): ${fmt(base.rate)} msg/s (offered ${fmt(target)}/s, ${base.failed} failed or unsent; ${load()})`,
    );

    const purger = app.get(RetentionPurger);
    const profile = args.profile ? profileStatements(uow) : null;
    const count = async () =>
      (
        await uow.read(
          query(decoders.n, sql('SELECT COUNT(*) AS n FROM messages WHERE updated_at < ?', old + total + 10)),
        )
      )[0];
    let purging: Promise<Awaited<ReturnType<typeof purger.purge>>> | undefined;
    const startPurge = () => {
      t0 = performance.now();
      purging = purger.purge();
    };
    let during: { rate: number; failed: number };
    const loadDuring = loadMeter();
    if (bulk) during = await bulkDispatch(windowS, startPurge);
    else {
      startPurge();
      during = await dispatch(windowS);
    }
    const leftAfterWindow = await count();
    const windowSecs = (performance.now() - t0) / 1000;
    const report = (await purging) ?? {};
    secs = (performance.now() - t0) / 1000;
    const purged = report.messages ?? 0;
    console.log(
      `dispatch while the purger deletes: ${fmt(during.rate)} msg/s = ${((100 * during.rate) / base.rate).toFixed(1)}% of the baseline (target >= 95%; ${during.failed} failed; ${loadDuring()})`,
    );
    console.log(
      `purge while dispatching: ${fmt((total - leftAfterWindow) / windowSecs)} messages/s over the first ${windowSecs.toFixed(1)} s`,
    );
    if (secs - windowSecs > 1)
      console.log(
        `purge alone after the window: ${fmt(leftAfterWindow / (secs - windowSecs))} messages/s over ${(secs - windowSecs).toFixed(1)} s`,
      );
    console.log(
      `purge: ${fmt(purged)} messages, ${fmt(report.message_status_history ?? 0)} history rows, ${fmt(report.message_provider_refs ?? 0)} refs in ${secs.toFixed(1)} s = ${fmt(purged / secs)} messages/s overall (target >= 20,000/s)`,
    );
    agent.destroy();
    if (profile) profile();
    if ((await count()) !== 0) throw new Error('expired messages left after the pass');
  } finally {
    await app.close();
    await drop();
  }
}

/** The process's CPU (a share of one core) and its event loop's busy share since the call, as text. */
function loadMeter(): () => string {
  const cpu = process.cpuUsage();
  const elu = performance.eventLoopUtilization();
  const t0 = performance.now();
  return () => {
    const used = process.cpuUsage(cpu);
    const ms = performance.now() - t0;
    const loop = performance.eventLoopUtilization(elu).utilization;
    return `service CPU ${((100 * (used.user + used.system)) / 1000 / ms).toFixed(0)}% of a core, event loop busy ${(100 * loop).toFixed(0)}%`;
  };
}

/** --profile: wall time per statement shape (first 60 characters) over the purge, printed at the end. */
function profileStatements(uow: object): () => void {
  const times = new Map<string, { n: number; ms: number }>();
  const u = uow as Record<string, (...a: unknown[]) => unknown>;
  const note = (text: string, ms: number) => {
    const shape = text.slice(0, 60);
    const t = times.get(shape) ?? { n: 0, ms: 0 };
    t.n++;
    t.ms += ms;
    times.set(shape, t);
  };
  for (const name of ['sqliteExec', 'mysqlExec']) {
    const orig = u[name].bind(uow);
    u[name] = (...a: unknown[]) => {
      const stmt = a[1] as { sql: string };
      const t0 = performance.now();
      const r = orig(...a);
      if (r instanceof Promise) return r.finally(() => note(stmt.sql, performance.now() - t0));
      note(stmt.sql, performance.now() - t0);
      return r;
    };
  }
  const prepare = u.prepare.bind(uow);
  u.prepare = (...a: unknown[]) => {
    const st = prepare(...a) as { run: (...p: unknown[]) => unknown };
    if (a[1] !== 'COMMIT') return st;
    return {
      ...st,
      run: (...p: unknown[]) => {
        const t0 = performance.now();
        const r = st.run(...p);
        note('COMMIT', performance.now() - t0);
        return r;
      },
    };
  };
  return () => {
    for (const [shape, t] of [...times].sort((a, b) => b[1].ms - a[1].ms).slice(0, 15))
      console.log(`  ${(t.ms / 1000).toFixed(2).padStart(8)} s ${String(t.n).padStart(7)} x  ${shape}`);
  };
}

const childArg = args.child;
(childArg ? child(childArg) : parent()).then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
