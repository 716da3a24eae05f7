// Child process of bench/api.bench.ts: boots (1) a bare NestJS app with one GET route (the baseline)
// and (2) the real service on SQLite with one account, then prints their ports and the API key.
import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { mkdtempSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

@Controller()
class BareController {
  @Get('bare')
  bare(): { success: true; data: { ok: true } } {
    return { success: true, data: { ok: true } };
  }
}

@Module({ controllers: [BareController] })
class BareModule {}

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
  const bare = await NestFactory.create(BareModule, { logger: false });
  await bare.listen(0, '127.0.0.1');
  const { createApp } = await import('../src/bootstrap');
  const app = await createApp();
  await app.listen(0, '127.0.0.1');
  const { AccountsService } = await import('../src/accounts/accounts.service');
  const { apiKey } = await app.get(AccountsService).create({ name: 'Bench', walletBalance: 1000 });
  const port = (a: { getHttpServer(): Server }) => (a.getHttpServer().address() as AddressInfo).port;
  process.send?.({ barePort: port(bare), appPort: port(app), key: apiKey.key });
}

process.on('SIGINT', () => process.exit(0));
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
