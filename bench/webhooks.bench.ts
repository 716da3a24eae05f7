// npm run bench:webhooks [-- --dialect=sqlite|mysql|both --events=20000 --concurrency=<WEBHOOK_DELIVERY_BATCH>]
// The delivery worker against a local receiver: N events are fanned out to one endpoint through the
// EVENT_SINK (batches of 1,000 in one unit each, timed too), then the worker is driven until every
// delivery is recorded `delivered`. The receiver runs in this (parent) process so it does not share
// the worker's event loop; each dialect runs in its own child process.
import 'reflect-metadata';
import { benchDatabase } from './bench-database';
import { fork } from 'node:child_process';
import http, { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { accountIdOf } from '../src/common/account-id';

const args = Object.fromEntries(
  process.argv
    .slice(2)
    .filter((a) => a.startsWith('--'))
    .map((a) => a.slice(2).split('=') as [string, string]),
);
const MYSQL_URL = process.env.BENCH_MYSQL_URL || 'mysql://root@127.0.0.1:3306/x';
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function parent(): Promise<void> {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
    });
  });
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const dialects = (args.dialect ?? 'both') === 'both' ? ['sqlite', 'mysql'] : [args.dialect];
  try {
    for (const d of dialects) {
      received = 0;
      connections = 0;
      await new Promise<void>((resolve, reject) => {
        const child = fork(__filename, [...process.argv.slice(2), `--child=${d}`, `--receiver=${port}`], {
          execArgv: [
            '-r',
            'ts-node/register/transpile-only',
            ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
          ],
          stdio: 'inherit',
        });
        child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${d} bench exited with ${code}`))));
      });
      console.log(`receiver got ${fmt(received)} requests on ${fmt(connections)} connections`);
    }
  } finally {
    server.close();
  }
}

async function child(dialect: string): Promise<void> {
  const mysql = dialect === 'mysql';
  const events = Number(args.events ?? 20_000);
  const { databaseUrl, drop: dropDb } = await benchDatabase(
    'bench-webhooks',
    mysql ? MYSQL_URL : null,
    'utf8mb4_unicode_ci',
  );
  Object.assign(process.env, {
    DATABASE_URL: databaseUrl,
    ADMIN_TOKEN: 'bench-admin-token-0123456789',
    LOG_LEVEL: 'silent',
    DEMO_ACCOUNT: 'false',
    SCHEDULERS_ENABLED: 'false',
    WEBHOOK_ALLOW_INSECURE: 'true',
    DB_POOL_SIZE: '20',
    PORT: '0',
    ...(args.concurrency ? { WEBHOOK_DELIVERY_BATCH: args.concurrency } : {}),
  });
  const { createApp } = await import('../src/bootstrap');
  const app = await createApp();
  app.useLogger(false);
  await app.listen(0, '127.0.0.1');
  const { AccountsService } = await import('../src/accounts/accounts.service');
  const { EventEndpointsService } = await import('../src/webhooks/event-endpoints.service');
  const { WebhookDeliveryWorker } = await import('../src/webhooks/webhook-delivery.worker');
  const { UnitOfWork } = await import('../src/database/unit-of-work');
  const { decoders, query } = await import('../src/database/sql');
  const { AppConfig } = await import('../src/config/app-config');
  const { EVENT_SINK } = await import('../src/messaging/events/event-sink');
  type Sink = import('../src/messaging/events/event-sink').EventSink;
  const uow = app.get(UnitOfWork);
  const label = mysql ? 'MariaDB' : 'SQLite';
  console.log(`\n=== ${label}: ${fmt(events)} events, WEBHOOK_DELIVERY_BATCH ${app.get(AppConfig).webhooks.batch} ===`);
  try {
    const { account } = await app.get(AccountsService).create({ name: 'Bench webhooks', walletBalance: 0 });
    await app
      .get(EventEndpointsService)
      .create(accountIdOf(account.id), { url: `http://127.0.0.1:${args.receiver}/hook`, events: ['message.*'] });
    const sink = app.get<Sink>(EVENT_SINK);
    const data = { id: 'msg_x', status: 'delivered', channel: 'local_sms', to: '+966501234567', sequence: 3 };
    let t0 = performance.now();
    for (let i = 0; i < events; i += 1000) {
      const batch = Array.from({ length: Math.min(1000, events - i) }, (_, k) => ({
        accountId: accountIdOf(account.id),
        type: 'message.delivered' as const,
        data: { ...data, id: `msg_${i + k}` },
        at: Date.now(),
      }));
      await uow.transaction((tx) => sink.record(tx, batch));
    }
    console.log(`fan-out into the outbox: ${fmt(events / ((performance.now() - t0) / 1000))} events/s`);

    // Baseline in the same run: plain keep-alive POSTs of the same size, as many at once as the worker sends.
    const cap = app.get(AppConfig).webhooks.batch;
    const agent = new http.Agent({ keepAlive: true });
    const body = JSON.stringify({ type: 'message.delivered', timestamp: new Date().toISOString(), data });
    const post = () =>
      new Promise<void>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port: Number(args.receiver),
            path: '/hook',
            method: 'POST',
            agent,
            headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
          },
          (res) => {
            res.resume();
            res.on('end', resolve);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    let left = events;
    t0 = performance.now();
    await Promise.all(
      Array.from({ length: cap }, async () => {
        while (left-- > 0) await post();
      }),
    );
    const bare = events / ((performance.now() - t0) / 1000);
    agent.destroy();
    console.log(`baseline: ${fmt(bare)} plain keep-alive POSTs/s with ${cap} at once`);

    const worker = app.get(WebhookDeliveryWorker);
    const delivered = async () =>
      (
        await uow.read(
          query(decoders.n, {
            sql: `SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'delivered'`,
            params: [],
          }),
        )
      )[0];
    const statementsBefore = uow.statements;
    t0 = performance.now();
    let stop = false;
    // As the scheduler does (every WEBHOOK_DELIVERY_INTERVAL_MS; a tick goes on while due rows remain).
    const driver = (async () => {
      while (!stop) {
        await worker.tick();
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    let lastReport = performance.now();
    for (let n = 0; n < events; n = await delivered()) {
      await new Promise((r) => setTimeout(r, 50));
      if (process.env.BENCH_PROGRESS && performance.now() - lastReport > 1000) {
        lastReport = performance.now();
        console.log(`  ${((lastReport - t0) / 1000).toFixed(1)} s: ${fmt(n)} delivered`);
      }
    }
    const secs = (performance.now() - t0) / 1000;
    stop = true;
    await driver;
    console.log(
      `statements per delivery (the bench's progress polls included): ${((uow.statements - statementsBefore) / events).toFixed(2)}`,
    );
    console.log(
      `delivery: ${fmt(events / secs)} deliveries/s (${secs.toFixed(2)} s, ${((100 * events) / secs / bare).toFixed(0)}% of the baseline; target >= 2,000/s)`,
    );
  } finally {
    await app.close();
    await dropDb();
  }
}

const childArg = args.child;
(childArg ? child(childArg) : parent()).then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
