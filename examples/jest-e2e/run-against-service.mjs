#!/usr/bin/env node
// Runs this example's Jest suite against the service built from this repository (.ci/run calls it):
//   1. `npm ci` here (the example's own dependencies, from its package-lock.json);
//   2. `npm run build` at the repository root (skip with SKIP_BUILD=1 when dist/ is current);
//   3. starts `node dist/src/main.js` on a free port of 127.0.0.1 with a fresh SQLite file in a temp
//      directory, webhooks allowed to loopback addresses and fast delivery loops;
//   4. creates an account with the operator API, then a test owner key with its owner key;
//   5. runs Jest here with MESSAGING_BASE_URL and MESSAGING_TEST_KEY (extra arguments go to Jest,
//      e.g. `--json --outputFile=/abs/path/example.json`);
//   6. stops the service, removes the temp directory, and exits with Jest's status.
// Usage: node examples/jest-e2e/run-against-service.mjs [jest arguments...]
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const exampleDir = dirname(fileURLToPath(import.meta.url));
const root = resolve(exampleDir, '..', '..');
const jestArgs = process.argv.slice(2);
const say = (line) => console.log(`[jest-e2e] ${line}`);

function run(cmd, args, cwd) {
  say(`${cmd} ${args.join(' ')}  (in ${cwd})`);
  const r = spawnSync(cmd, args, { cwd, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
}

function freePort() {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => ok(port));
    });
  });
}

async function call(method, url, headers, body) {
  const res = await fetch(url, {
    method,
    headers: { ...headers, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

let service = null;
let serviceExit = null;
let serviceLog = null;
let tmp = null;

async function stopService() {
  if (service && service.exitCode === null && service.signalCode === null) {
    service.kill('SIGTERM');
    const killer = setTimeout(() => service.kill('SIGKILL'), 30_000);
    await serviceExit;
    clearTimeout(killer);
  }
  if (serviceExit) await serviceExit;
  if (serviceLog) await new Promise((ok) => serviceLog.end(ok));
  serviceLog = null;
}

function logTail(lines = 80) {
  const log = tmp && join(tmp, 'service.log');
  if (!log || !existsSync(log)) return;
  const text = readFileSync(log, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  if (text) console.log(`[jest-e2e] last lines of the service's log:\n${text}`);
}

async function main() {
  if (process.env.SKIP_INSTALL !== '1') run('npm', ['ci', '--no-audit', '--no-fund'], exampleDir);
  if (process.env.SKIP_BUILD !== '1') run('npm', ['run', 'build'], root);
  const main = join(root, 'dist', 'src', 'main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: run npm run build at the repository root`);

  tmp = mkdtempSync(join(tmpdir(), 'jest-e2e-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const adminToken = randomBytes(24).toString('hex');
  const env = {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_BASE_URL: baseUrl,
    DATABASE_URL: `sqlite:${join(tmp, 'messaging.sqlite')}`,
    ADMIN_TOKEN: adminToken,
    APP_SECRET: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'warn',
    // The suite's webhook receiver listens on http://127.0.0.1 (a private, plain-http target).
    WEBHOOK_ALLOW_INSECURE: 'true',
    // Loops at test speed: events, receipts and bulk windows within a few hundred ms.
    WEBHOOK_DELIVERY_INTERVAL_MS: '50',
    WEBHOOK_RETRY_BASE_MS: '50',
    WEBHOOK_ENDPOINT_RETRY_SCHEDULE_MS: '0,200,1000,5000',
    SANDBOX_RECEIPT_TICK_MS: '50',
    BULK_VALIDATION_TICK_MS: '50',
    BULK_DISPATCH_TICK_MS: '50',
  };
  say(`starting the service on ${baseUrl} (database and log in ${tmp})`);
  serviceLog = createWriteStream(join(tmp, 'service.log'));
  service = spawn(process.execPath, [main], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  service.stdout.pipe(serviceLog, { end: false });
  service.stderr.pipe(serviceLog, { end: false });
  // 'close': the process ended and its output is all in the log.
  serviceExit = new Promise((ok) => service.on('close', (code, signal) => ok(code ?? signal)));

  const deadline = Date.now() + 120_000;
  for (;;) {
    if (service.exitCode !== null || service.signalCode !== null)
      throw new Error(`the service exited during start-up (${await serviceExit})`);
    const ready = await fetch(`${baseUrl}/health/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) throw new Error('the service was not ready within 120 s');
    await new Promise((r) => setTimeout(r, 200));
  }

  const created = await call(
    'POST',
    `${baseUrl}/admin/v1/accounts`,
    { Authorization: `Bearer ${adminToken}` },
    {
      name: 'jest-e2e example',
    },
  );
  const ownerKey = created.data.apiKey.key;
  const testKey = (
    await call(
      'POST',
      `${baseUrl}/api/v2/api-keys`,
      { 'X-API-Key': ownerKey },
      { name: 'ci', mode: 'test', role: 'owner' },
    )
  ).data.apiKey.key;
  say(`account ${created.data.account.id}, test key ${testKey.slice(0, 17)}...`);

  say(`jest ${jestArgs.join(' ')}`);
  const jest = spawn(process.execPath, [join(exampleDir, 'node_modules', 'jest', 'bin', 'jest.js'), ...jestArgs], {
    cwd: exampleDir,
    stdio: 'inherit',
    env: { ...process.env, MESSAGING_BASE_URL: baseUrl, MESSAGING_TEST_KEY: testKey },
  });
  return new Promise((ok) => jest.on('exit', (code) => ok(code ?? 1)));
}

let status = 1;
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    void stopService().finally(() => process.exit(130));
  });
try {
  status = await main();
} catch (err) {
  console.error(`[jest-e2e] ${err instanceof Error ? err.message : String(err)}`);
  status = 1;
} finally {
  await stopService();
  if (status !== 0) logTail();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}
say(`done: jest exited with ${status}`);
process.exit(status);
