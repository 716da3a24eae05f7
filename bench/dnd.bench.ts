// npm run bench:dnd [-- --numbers=1000000 --dialect=sqlite|mysql|both] [-- --url=http://127.0.0.1:3000 --token=<ADMIN_TOKEN>]
// The platform's do-not-disturb list (issue 28 item 7; target: 1,000,000 numbers imported in under 60 s
// on both dialects). `numbers` distinct Saudi mobile numbers, in a scrambled order, are streamed as CSV
// through PUT /admin/v1/dnd of the app (in-process, each dialect in its own child; MariaDB when
// BENCH_MYSQL_URL or TEST_MYSQL_URL is set, or --dialect=mysql|both), then imported a second time (the
// replacement deletes the first list), then the lookup the send policy makes is timed and EXPLAINed.
// With --url the same imports go to a running server (`npm run start:prod`) and nothing else is read.
import 'reflect-metadata';
import { fork } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { benchDatabase } from './bench-database';

const args = Object.fromEntries(
  process.argv
    .slice(2)
    .filter((a) => a.startsWith('--'))
    .map((a) => a.slice(2).split('=') as [string, string]),
);
const MYSQL_URL = process.env.BENCH_MYSQL_URL || process.env.TEST_MYSQL_URL || '';
const TOKEN = args.token ?? process.env.ADMIN_TOKEN ?? 'bench-admin-token-0123456789';
const COUNT = Number(args.numbers ?? 1_000_000);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** `count` distinct valid mobile numbers (+96650 and 7 digits), scrambled (7919 is prime to 10^7), as CSV. */
function csv(count: number, salt: number): Readable {
  const LINES = 2_000;
  return Readable.from(
    (function* () {
      yield 'msisdn\n';
      for (let from = 0; from < count; from += LINES) {
        let chunk = '';
        for (let i = from; i < Math.min(count, from + LINES); i++)
          chunk += `+96650${String((i * 7919 + salt) % 10_000_000).padStart(7, '0')}\n`;
        yield chunk;
      }
    })(),
  );
}

interface Imported {
  status: number;
  body: { success: boolean; data?: { numbers: number; invalid: number; durationMs: number }; [k: string]: unknown };
  seconds: number;
}

function importList(base: string, count: number, salt: number): Promise<Imported> {
  const url = new URL('/admin/v1/dnd', base);
  const client = url.protocol === 'https:' ? https : http;
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      { method: 'PUT', headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'text/csv' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), seconds: (performance.now() - t0) / 1000 }),
        );
      },
    );
    req.on('error', reject);
    csv(count, salt).pipe(req);
  });
}

async function imports(base: string, label: string): Promise<void> {
  for (const [what, salt] of [
    ['first import', 0],
    ['replacement (the first list deleted after the switch)', 1],
  ] as const) {
    const r = await importList(base, COUNT, salt);
    if (r.status !== 200 || !r.body.data) throw new Error(`${label} ${what}: ${r.status} ${JSON.stringify(r.body)}`);
    console.log(
      `${label} ${what}: ${fmt(r.body.data.numbers)} numbers in ${r.seconds.toFixed(1)} s ` +
        `(${fmt(r.body.data.numbers / r.seconds)} numbers/s; server durationMs ${fmt(r.body.data.durationMs)}; ` +
        `invalid ${r.body.data.invalid}) ${r.seconds < 60 ? 'OK' : 'OVER 60 s'}`,
    );
  }
}

async function parent(): Promise<void> {
  if (args.url) return imports(args.url, args.url);
  const dialect = args.dialect ?? (MYSQL_URL ? 'both' : 'sqlite');
  const dialects = dialect === 'both' ? ['sqlite', 'mysql'] : [dialect];
  for (const d of dialects)
    await new Promise<void>((resolve, reject) => {
      const child = fork(__filename, [...process.argv.slice(2), `--child=${d}`], {
        execArgv: ['-r', 'ts-node/register/transpile-only'],
        stdio: 'inherit',
      });
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${d} bench exited with ${code}`))));
    });
}

async function child(dialect: string): Promise<void> {
  const mysql = dialect === 'mysql';
  const { databaseUrl, drop } = await benchDatabase(
    'bench-dnd',
    mysql ? MYSQL_URL || 'mysql://root@127.0.0.1:3306/x' : null,
  );
  Object.assign(process.env, {
    DATABASE_URL: databaseUrl,
    ADMIN_TOKEN: TOKEN,
    LOG_LEVEL: 'silent',
    DEMO_ACCOUNT: 'false',
    SCHEDULERS_ENABLED: 'false',
    PORT: '0',
  });
  const { createApp } = await import('../src/bootstrap');
  const { DataSource } = await import('typeorm');
  const { DndRepository, dndLookup } = await import('../src/consent/dnd.repository');
  const app = await createApp();
  app.useLogger(false);
  await app.listen(0, '127.0.0.1');
  const label = mysql ? 'MariaDB' : 'SQLite';
  console.log(`\n=== ${label}: import ${fmt(COUNT)} numbers through PUT /admin/v1/dnd ===`);
  try {
    const { port } = app.getHttpServer().address() as { port: number };
    await imports(`http://127.0.0.1:${port}`, label);

    // The send policy's lookup: one statement for all the numbers of a decide() call.
    const repo = app.get(DndRepository);
    const ds = app.get(DataSource);
    const listedNumber = `+96650${String((12_345 * 7919 + 1) % 10_000_000).padStart(7, '0')}`;
    for (const size of [1, 500]) {
      const numbers = Array.from({ length: size }, (_, i) =>
        i === 0 ? listedNumber : `+96650${String((i * 7919 + 1) % 10_000_000).padStart(7, '0')}`,
      );
      const rounds = size === 1 ? 2_000 : 200;
      const t0 = performance.now();
      let hits = 0;
      for (let r = 0; r < rounds; r++) hits = (await repo.listed(numbers)).size;
      const ms = (performance.now() - t0) / rounds;
      console.log(`${label} lookup of ${size} number(s): ${ms.toFixed(3)} ms a call (${hits} listed)`);
    }
    const stmt = dndLookup([listedNumber, '+966509999999']);
    const plan = mysql
      ? ((await ds.query(`EXPLAIN ${stmt.sql}`, stmt.params)) as Record<string, unknown>[]).map(
          (p) => `${String(p.table)}: type=${String(p.type)} key=${String(p.key)} rows=${String(p.rows)}`,
        )
      : ((await ds.query(`EXPLAIN QUERY PLAN ${stmt.sql}`, stmt.params)) as { detail: string }[]).map((p) => p.detail);
    console.log(`${label} lookup plan: ${plan.join(' | ')}`);
  } finally {
    await app.close();
    await drop();
  }
}

const childDialect = args.child;
(childDialect ? child(childDialect) : parent()).then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
