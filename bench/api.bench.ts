// npm run bench:api — authenticated, database-backed GET /api/v2/account vs a bare NestJS GET,
// both served by one child process and measured in the same run (autocannon, 50 connections, 10 s).
// Target: account >= 50% of the baseline's req/s.
import autocannon from 'autocannon';
import { fork } from 'node:child_process';
import { join } from 'node:path';

const DURATION = Number(process.env.BENCH_DURATION || 10);

interface Ready {
  barePort: number;
  appPort: number;
  key: string;
}

function run(url: string, headers: Record<string, string>): Promise<autocannon.Result> {
  return autocannon({ url, connections: 50, duration: DURATION, headers });
}

async function main(): Promise<void> {
  const child = fork(join(__dirname, 'api-server.ts'), [], {
    execArgv: ['-r', 'ts-node/register/transpile-only'],
    stdio: 'inherit',
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('message', (m) => resolve(m as Ready));
    child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  try {
    // Warm both up, then measure baseline and account alternately (twice) and take medians.
    await autocannon({ url: `http://127.0.0.1:${ready.barePort}/bare`, connections: 10, duration: 2 });
    await autocannon({
      url: `http://127.0.0.1:${ready.appPort}/api/v2/account`,
      connections: 10,
      duration: 2,
      headers: { 'x-api-key': ready.key },
    });
    const bare: autocannon.Result[] = [];
    const account: autocannon.Result[] = [];
    for (let i = 0; i < 2; i++) {
      bare.push(await run(`http://127.0.0.1:${ready.barePort}/bare`, {}));
      account.push(await run(`http://127.0.0.1:${ready.appPort}/api/v2/account`, { 'x-api-key': ready.key }));
    }
    const median = (rs: autocannon.Result[], f: (r: autocannon.Result) => number) => {
      const v = rs.map(f).sort((a, b) => a - b);
      return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    };
    const errors = account.reduce((n, r) => n + r.errors + r.non2xx, 0);
    const b = median(bare, (r) => r.requests.average);
    const a = median(account, (r) => r.requests.average);
    console.log(`baseline  GET /bare              ${b.toFixed(0)} req/s  p99 ${median(bare, (r) => r.latency.p99)} ms`);
    console.log(
      `service   GET /api/v2/account    ${a.toFixed(0)} req/s  p99 ${median(account, (r) => r.latency.p99)} ms  (non-2xx/errors: ${errors})`,
    );
    const ratio = a / b;
    console.log(
      `ratio     ${(ratio * 100).toFixed(1)}% of baseline (target >= 50%) -> ${ratio >= 0.5 && errors === 0 ? 'PASS' : 'FAIL'}`,
    );
  } finally {
    child.kill();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
