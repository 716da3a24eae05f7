import { randomBytes } from 'node:crypto';
import { INestApplication, Type } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Test, TestingModule } from '@nestjs/testing';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { AppModule } from '../../src/app.module';
import { configureApp } from '../../src/bootstrap';
import { openDataSources } from '../../src/database/database.module';
import { inList } from '../../src/database/sql';
import { AppConfig, Env, loadConfig } from '../../src/config/app-config';
import { dropDatabase, freshDatabaseUrl } from './database';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
export const REQUEST_ID_RE = /^msgreq_\d+_[0-9a-z]+$/;

export interface TestAccount {
  id: string;
  key: string;
  keyId: string;
}

export interface TestApp {
  app: INestApplication;
  config: AppConfig;
  baseUrl: string;
  databaseUrl: string;
  http(): ReturnType<typeof request>;
  /** Admin call with the bearer token set. */
  admin(method: 'get' | 'post' | 'patch' | 'put' | 'delete', path: string): request.Test;
  /** A fresh account (defaults: verified phone, active subscription, wallet 100000 minor units). */
  createAccount(fields?: Record<string, unknown>): Promise<TestAccount>;
  memberKey(accountId: string, permissions: string[]): Promise<string>;
  /** Stops the app; keeps the database when `keepDatabase` (restart tests). */
  close(opts?: { keepDatabase?: boolean }): Promise<void>;
}

export interface TestAppOptions {
  env?: Env;
  /** Reuse a database (restart tests); a fresh one otherwise. */
  databaseUrl?: string;
  /** Extra controllers mounted for a test (e.g. one that throws, to see the 500 envelope). */
  controllers?: Type<unknown>[];
}

export function testEnv(extra: Env = {}): Env {
  return {
    NODE_ENV: 'test',
    ADMIN_TOKEN,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL || 'silent',
    DEMO_ACCOUNT: 'false',
    WEBHOOK_ALLOW_INSECURE: 'true',
    WEBHOOK_RETRY_BASE_MS: '50',
    // Suites assert `sent` after sandbox sends: simulated receipts come after an hour unless a suite opts in.
    SANDBOX_DELIVERED_AFTER_MS: '3600000',
    APP_SECRET: 'test-app-secret-0123456789',
    // Suites poll a lot with one key; throttling is tested with its own low limit.
    THROTTLE_LIMIT: '1000000',
    PUBLIC_THROTTLE_LIMIT: '1000000',
    // Each app its own counters: apps of one test run share 127.0.0.1, and the per-IP budgets would
    // otherwise add up across suites (a deployment's replicas share one prefix).
    ...(process.env.TEST_REDIS_URL
      ? { REDIS_URL: process.env.TEST_REDIS_URL, REDIS_KEY_PREFIX: `msgtest:${randomBytes(4).toString('hex')}:` }
      : {}),
    ...extra,
  };
}

/** The app on `databaseUrl`, listening; a start that fails closes what it opened and throws. */
async function boot(
  databaseUrl: string,
  opts: TestAppOptions,
): Promise<{ app: NestExpressApplication; config: AppConfig }> {
  const config = loadConfig(testEnv({ DATABASE_URL: databaseUrl, ...opts.env }));
  const before = new Set(openDataSources());
  let moduleRef: TestingModule;
  try {
    moduleRef = await Test.createTestingModule({ imports: [AppModule], controllers: opts.controllers ?? [] })
      .overrideProvider(AppConfig)
      .useValue(config)
      .compile();
  } catch (err) {
    // Compilation failed after the database connected (a provider refused its configuration).
    await Promise.all(
      openDataSources()
        .filter((ds) => !before.has(ds))
        .map((ds) => ds.destroy().catch(() => undefined)),
    );
    throw err;
  }
  const app = moduleRef.createNestApplication<NestExpressApplication>({ bodyParser: false, bufferLogs: true });
  configureApp(app);
  try {
    await app.listen(0, '127.0.0.1');
  } catch (err) {
    // A failed start must not leave the pool open (Jest would hang on MySQL).
    await app.close().catch(() => undefined);
    throw err;
  }
  return { app, config };
}

export async function createTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const databaseUrl = opts.databaseUrl ?? (await freshDatabaseUrl());
  let booted: { app: NestExpressApplication; config: AppConfig };
  try {
    booted = await boot(databaseUrl, opts);
  } catch (err) {
    // A refused configuration or a failed start (often what the test is about) leaves no fresh database behind.
    if (!opts.databaseUrl) await dropDatabase(databaseUrl).catch(() => undefined);
    throw err;
  }
  const { app, config } = booted;
  const address = app.getHttpServer().address() as { port: number };
  const baseUrl = `http://127.0.0.1:${address.port}`;
  const http = () => request(app.getHttpServer());
  const admin = (method: 'get' | 'post' | 'patch' | 'put' | 'delete', path: string) =>
    http()[method](path).set('Authorization', `Bearer ${ADMIN_TOKEN}`);

  return {
    app,
    config,
    baseUrl,
    databaseUrl,
    http,
    admin,
    async createAccount(fields = {}) {
      const res = await admin('post', '/admin/v1/accounts').send({
        name: 'Test account',
        walletBalance: 100_000,
        ...fields,
      });
      if (res.status !== 201) throw new Error(`createAccount failed: ${res.status} ${JSON.stringify(res.body)}`);
      return { id: res.body.data.account.id, key: res.body.data.apiKey.key, keyId: res.body.data.apiKey.id };
    },
    async memberKey(accountId, permissions) {
      const res = await admin('post', `/admin/v1/accounts/${accountId}/api-keys`).send({ role: 'member', permissions });
      if (res.status !== 201) throw new Error(`memberKey failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.data.apiKey.key as string;
    },
    async close(closeOpts = {}) {
      await app.close();
      if (!closeOpts.keepDatabase) await dropDatabase(databaseUrl);
    },
  };
}

/** Polls `fn` until it returns a truthy value (no fixed sleeps in tests). */
export async function waitFor<T>(
  fn: () => Promise<T | null | undefined | false>,
  opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 15000);
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 25));
  }
  throw new Error(`waitFor timed out: ${opts.what ?? 'condition'}${last ? ` (last error: ${String(last)})` : ''}`);
}

/**
 * Makes scheduled messages due now. Tests schedule far enough ahead that a slow request cannot reach
 * the server after its own `scheduleAt` (INVALID_SCHEDULE), then move the time into the past here.
 */
export async function makeDue(ds: DataSource, ids: string[]): Promise<void> {
  await ds.query(`UPDATE messages SET scheduled_at = ? WHERE id IN (${inList(ids.length)})`, [Date.now() - 1, ...ids]);
}
