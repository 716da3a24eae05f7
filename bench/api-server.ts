// Child process of bench:api in-process mode: boots (1) the bare NestJS app (the baseline) and
// (2) the real service on SQLite with one account, then sends their ports and the API key.
import 'reflect-metadata';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBareApp } from './bare-app';

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-api-'));
  Object.assign(process.env, {
    DATABASE_URL: process.env.BENCH_DATABASE_URL || `sqlite:${join(dir, 'bench.sqlite')}`,
    ADMIN_TOKEN: 'bench-admin-token-0123456789',
    LOG_LEVEL: 'silent',
    DEMO_ACCOUNT: 'false',
    THROTTLE_LIMIT: '100000000',
    SCHEDULERS_ENABLED: 'false',
    PORT: '0',
  });
  const bare = await startBareApp();
  const { createApp } = await import('../src/bootstrap');
  const app = await createApp();
  await app.listen(0, '127.0.0.1');
  const { AccountsService } = await import('../src/accounts/accounts.service');
  const { apiKey } = await app.get(AccountsService).create({ name: 'Bench', walletBalance: 1000 });
  const port = (a: { getHttpServer(): Server }) => (a.getHttpServer().address() as AddressInfo).port;
  process.send?.({ barePort: bare.port, appPort: port(app), key: apiKey.key });
}

process.on('SIGINT', () => process.exit(0));
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
