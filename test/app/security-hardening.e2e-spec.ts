import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { DemoAccountBootstrap } from '../../src/accounts/demo-account.bootstrap';
import { AccountsService } from '../../src/accounts/accounts.service';
import { createTestApp, TestApp, testEnv, waitFor } from '../support/app';
import { spawnApp } from '../support/spawn-app';

const HOOK_SECRET = 'cloud-hook-secret-0123456789';
const freshSqliteUrl = () => `sqlite:${join(mkdtempSync(join(tmpdir(), 'msg-sec-')), 'test.sqlite')}`;

function expectEnvelope(res: request.Response, status: number, code: string): void {
  expect({
    status: res.status,
    success: res.body.success,
    code: res.body.code,
    requestId: typeof res.body.requestId,
  }).toEqual({
    status,
    success: false,
    code,
    requestId: 'string',
  });
}

describe('Security hardening (e2e)', () => {
  describe('security headers (helmet)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp();
    });
    afterAll(() => t.close());

    it('JSON answers and error envelopes carry the API headers: nothing may load, nothing may frame, no sniffing', async () => {
      for (const res of [await t.http().get('/health/live'), await t.http().get('/api/v2/nope')]) {
        expect(res.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(res.headers['x-frame-options']).toBe('DENY');
        expect(res.headers['strict-transport-security']).toMatch(/^max-age=\d+/);
        expect(res.headers['referrer-policy']).toBe('no-referrer');
        expect(res.headers['cross-origin-resource-policy']).toBe('same-origin');
        expect(res.headers['x-powered-by']).toBeUndefined();
      }
    });

    it('the Swagger UI gets a policy that allows exactly what its page loads (same-origin scripts, inline styles)', async () => {
      const page = await t.http().get('/docs');
      expect(page.status).toBe(200);
      const csp = String(page.headers['content-security-policy']);
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("style-src 'self' https: 'unsafe-inline'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('upgrade-insecure-requests');
      // script-src 'self' without 'unsafe-inline': every script must be a same-origin file that loads.
      const scripts = [...page.text.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
      expect(scripts.length).toBeGreaterThan(0);
      for (const [, attrs, body] of scripts) {
        expect(body.trim()).toBe('');
        const src = new URL(/src="([^"]+)"/.exec(attrs)?.[1] ?? '', `${t.baseUrl}/docs`);
        expect(src.origin).toBe(t.baseUrl);
        const file = await t.http().get(src.pathname);
        expect({ path: src.pathname, status: file.status }).toEqual({ path: src.pathname, status: 200 });
      }
    });
  });

  describe('DOCS_ENABLED', () => {
    it.each([
      [{ DOCS_ENABLED: 'false' }, 404],
      [{ NODE_ENV: 'prod' }, 404],
      [{ NODE_ENV: 'production', DOCS_ENABLED: 'true' }, 200],
      [{ NODE_ENV: 'development' }, 200],
    ])('%j: /docs and /docs-json answer %i', async (env, status) => {
      const t = await createTestApp({ env });
      try {
        for (const path of ['/docs', '/docs/', '/docs-json']) {
          const res = await t.http().get(path);
          if (status === 404) expectEnvelope(res, 404, 'NOT_FOUND');
          else expect({ path, status: res.status }).toEqual({ path, status: 200 });
        }
      } finally {
        await t.close();
      }
    });
  });

  describe('production mode (NODE_ENV other than development/test)', () => {
    it.each([
      ['development', true],
      ['prod', false],
      ['staging', false],
      ['PRODUCTION', false],
    ])('NODE_ENV=%s on an empty embedded database: demo account created = %s', async (nodeEnv, created) => {
      const t = await createTestApp({
        databaseUrl: freshSqliteUrl(),
        env: { NODE_ENV: nodeEnv, DEMO_ACCOUNT: 'true' },
      });
      try {
        const key = t.app.get(DemoAccountBootstrap).created?.key;
        expect(typeof key === 'string').toBe(created);
        expect(await t.app.get(AccountsService).countAll()).toBe(created ? 1 : 0);
      } finally {
        await t.close();
      }
    });
  });

  describe('per-IP throttling of admin, hook and preview routes', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({
        env: {
          PUBLIC_THROTTLE_LIMIT: '4',
          PUBLIC_THROTTLE_TTL_SECONDS: '60',
          CHATAPP_CLOUD_WEBHOOK_SECRET: HOOK_SECRET,
        },
      });
    });
    afterAll(() => t.close());

    it('one budget per client IP; past it every such route is 429 RATE_LIMITED with Retry-After, even with valid credentials; API-key routes unaffected', async () => {
      const acc = await t.createAccount(); // 1
      expect((await t.http().get('/hooks/chatapp/template-status?hub.verify_token=wrong&hub.challenge=1')).status).toBe(
        401,
      ); // 2
      expect((await t.http().post('/hooks/waha/wss_unknown').send({ event: 'message' })).status).toBe(401); // 3
      expect((await t.http().get('/media/template-headers/tma_unknown')).status).toBe(404); // 4
      const limited = [
        t.admin('post', '/admin/v1/accounts').send({ name: 'Over budget' }),
        t.http().get('/admin/v1/sandbox/messages').set('Authorization', 'Bearer wrong-admin-token-guess'),
        t.http().get(`/hooks/chatapp/template-status?hub.verify_token=${HOOK_SECRET}&hub.challenge=7`),
        t.http().post('/hooks/waha/wss_unknown').send({ event: 'message' }),
        t.http().get('/media/template-headers/tma_unknown'),
      ];
      for (const call of limited) {
        const res = await call;
        expectEnvelope(res, 429, 'RATE_LIMITED');
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(res.body.retryAfterSeconds).toBe(Number(res.headers['retry-after']));
      }
      expect(await t.app.get(AccountsService).countAll()).toBe(1);
      expect((await t.http().get('/api/v2/account').set('X-API-Key', acc.key)).status).toBe(200);
      expect((await t.http().get('/health/live')).status).toBe(200);
    });
  });

  describe('template-status hook secret', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ env: { CHATAPP_CLOUD_WEBHOOK_SECRET: HOOK_SECRET } });
    });
    afterAll(() => t.close());

    it('compares equal-length digests whatever the guess, so neither time nor an early exit tells the length', async () => {
      const crypto = jest.requireActual<typeof import('node:crypto')>('node:crypto');
      const spy = jest.spyOn(crypto, 'timingSafeEqual');
      try {
        for (const guess of [
          'x',
          HOOK_SECRET.slice(0, -1),
          `${HOOK_SECRET}x`,
          'y'.repeat(HOOK_SECRET.length),
          HOOK_SECRET,
        ]) {
          spy.mockClear();
          const res = await t
            .http()
            .get(`/hooks/chatapp/template-status?hub.verify_token=${encodeURIComponent(guess)}&hub.challenge=42`);
          expect(res.status).toBe(guess === HOOK_SECRET ? 200 : 401);
          expect(spy).toHaveBeenCalledTimes(1);
          const [a, b] = spy.mock.calls[0] as [Buffer, Buffer];
          expect([a.length, b.length]).toEqual([32, 32]);
        }
      } finally {
        spy.mockRestore();
      }
    });
  });

  describe('the real process (main.ts) with NODE_ENV=prod and LOG_LEVEL=info', () => {
    it('logs request URLs with secret query values redacted, prints no demo key and serves no docs', async () => {
      const proc = spawnApp(
        testEnv({
          NODE_ENV: 'prod',
          LOG_LEVEL: 'info',
          DEMO_ACCOUNT: 'true',
          DATABASE_URL: freshSqliteUrl(),
          PORT: '0',
          HOST: '127.0.0.1',
          CHATAPP_CLOUD_WEBHOOK_SECRET: HOOK_SECRET,
        }),
      );
      try {
        // The space after the URL: the whole address has arrived, not a chunk ending inside the port.
        const base = /listening on (http:\S+) /.exec(await proc.waitForOutput(/listening on http:\S+ /, 60_000))![1];
        const verify = await fetch(
          `${base}/hooks/chatapp/template-status?hub.mode=subscribe&hub.verify_token=${HOOK_SECRET}&hub.challenge=42`,
        );
        expect(await verify.text()).toBe('42');
        const post = await fetch(`${base}/hooks/chatapp/template-status?token=${HOOK_SECRET}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        expect(post.status).toBe(200);
        const wrong = await fetch(
          `${base}/hooks/chatapp/template-status?token=wrong-guess-4242&api_key=another-secret-77`,
          { method: 'POST' },
        );
        expect(wrong.status).toBe(401);
        const docs = await fetch(`${base}/docs-json`);
        expect(docs.status).toBe(404);
        await waitFor(
          async () => (proc.output().match(/"url":"\/hooks\/chatapp\/template-status/g) ?? []).length >= 3,
          { what: 'three hook request log lines' },
        );
      } finally {
        await proc.stop();
      }
      const out = proc.output();
      expect(out).not.toContain(HOOK_SECRET);
      expect(out).not.toContain('wrong-guess-4242');
      expect(out).not.toContain('another-secret-77');
      expect(out).toContain('hub.verify_token=[REDACTED]&hub.challenge=42');
      expect(out).toContain('?token=[REDACTED]&api_key=[REDACTED]');
      expect(out).not.toMatch(/Demo account|msk_/);
      expect(out).toContain('OpenAPI documents are off');
    });
  });
});
