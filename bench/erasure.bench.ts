// npm run bench:erasure [-- --dialect=sqlite|mysql|both --messages=100000 --others=100000]
// Erasure of one recipient (issue 29; target: 100,000 messages within 30 s on MariaDB): an account holds
// `messages` settled messages to the recipient and `others` to other numbers; the erasure is requested
// through its service and the loop's pass is driven until it completes. Each dialect in its own child.
import 'reflect-metadata';
import { fork } from 'node:child_process';
import { benchDatabase } from './bench-database';
import { accountIdOf } from '../src/common/account-id';

const args = Object.fromEntries(
  process.argv
    .slice(2)
    .filter((a) => a.startsWith('--'))
    .map((a) => a.slice(2).split('=') as [string, string]),
);
const MYSQL_URL = process.env.BENCH_MYSQL_URL || 'mysql://root@127.0.0.1:3306/x';
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const PHONE = '+966501234567';

async function parent(): Promise<void> {
  const dialects = (args.dialect ?? 'both') === 'both' ? ['sqlite', 'mysql'] : [args.dialect];
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
  const target = Number(args.messages ?? 100_000);
  const others = Number(args.others ?? 100_000);
  const { databaseUrl, drop } = await benchDatabase('bench-erasure', mysql ? MYSQL_URL : null, 'utf8mb4_unicode_ci');
  Object.assign(process.env, {
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
    DEMO_ACCOUNT: 'false',
    SCHEDULERS_ENABLED: 'false',
    PORT: '0',
  });
  const { createApp } = await import('../src/bootstrap');
  const app = await createApp();
  app.useLogger(false);
  await app.init();
  const { AccountsService } = await import('../src/accounts/accounts.service');
  const { UnitOfWork } = await import('../src/database/unit-of-work');
  const { AppConfig } = await import('../src/config/app-config');
  const { ErasuresService } = await import('../src/privacy/erasure/erasures.service');
  const { ErasureRunner } = await import('../src/privacy/erasure/erasure-runner');
  const uow = app.get(UnitOfWork);
  const label = mysql ? 'MariaDB' : 'SQLite';
  const batch = app.get(AppConfig).erasure.batchRows;
  console.log(
    `\n=== ${label}: erase ${fmt(target)} messages among ${fmt(target + others)}, ERASURE_BATCH_ROWS ${batch} ===`,
  );
  try {
    const { account } = await app.get(AccountsService).create({ name: 'Bench erasure', walletBalance: 0 });
    let t0 = performance.now();
    const total = target + others;
    for (let from = 0; from < total; from += 1000) {
      const n = Math.min(1000, total - from);
      const params: (string | number)[] = [];
      for (let i = from; i < from + n; i++) {
        const to = i % 2 === 0 && i / 2 < target ? PHONE : `+9665${String(20_000_000 + i)}`;
        params.push(`msg_bench_${String(i).padStart(8, '0')}`, account.id, to, Date.now(), Date.now());
      }
      await uow.exec({
        sql: `INSERT INTO messages (id, account_id, channel, message_type, recipient, status, cost, paid_from, payload, attempts, created_at, updated_at) VALUES ${Array.from({ length: n }, () => "(?, ?, 'local_sms', 'free_text', ?, 'delivered', 5, 'wallet', NULL, 1, ?, ?)").join(', ')}`,
        params,
      });
    }
    console.log(`seeded ${fmt(total)} messages in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    t0 = performance.now();
    const erasure = await app.get(ErasuresService).request(accountIdOf(account.id), PHONE);
    const runner = app.get(ErasureRunner);
    while ((await app.get(ErasuresService).get(accountIdOf(account.id), erasure.id)).status !== 'completed')
      await runner.pass();
    const secs = (performance.now() - t0) / 1000;
    const done = await app.get(ErasuresService).get(accountIdOf(account.id), erasure.id);
    console.log(
      `erased ${fmt(done.counts.messages)} messages in ${secs.toFixed(2)} s (${fmt(done.counts.messages / secs)} messages/s)`,
    );
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
