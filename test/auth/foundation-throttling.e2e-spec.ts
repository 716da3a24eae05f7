import { createTestApp, TestApp } from '../support/app';
import { expectEnvelope } from '../support/envelope';

describe('Throttling (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { THROTTLE_LIMIT: '3', THROTTLE_TTL_SECONDS: '30', TRUST_PROXY: 'loopback' } });
  });
  afterAll(async () => t.close());

  it('429 RATE_LIMITED per key with retryAfterSeconds and Retry-After', async () => {
    const a = await t.createAccount();
    const b = await t.createAccount();
    for (let i = 0; i < 3; i++)
      expect((await t.http().get('/api/v2/account').set('X-API-Key', a.key)).status).toBe(200);
    const res = await t.http().get('/api/v2/account').set('X-API-Key', a.key);
    expectEnvelope(res, 429, 'RATE_LIMITED');
    expect(Number.isInteger(res.body.retryAfterSeconds)).toBe(true);
    expect(res.body.retryAfterSeconds).toBeGreaterThan(0);
    expect(res.headers['retry-after']).toBe(String(res.body.retryAfterSeconds));
    // Another key has its own budget.
    expect((await t.http().get('/api/v2/account').set('X-API-Key', b.key)).status).toBe(200);
  });

  it('the budget is per key across all routes, not per route', async () => {
    const a = await t.createAccount();
    expect((await t.http().get('/api/v2/account').set('X-API-Key', a.key)).status).toBe(200);
    expect((await t.http().get('/api/v2/messages').set('X-API-Key', a.key)).status).toBe(200);
    expect((await t.http().get('/api/v2/templates').set('X-API-Key', a.key)).status).toBe(200);
    expectEnvelope(await t.http().get('/api/v2/sms-senders').set('X-API-Key', a.key), 429, 'RATE_LIMITED');
  });

  it('unauthenticated callers are limited per client IP (behind a trusted proxy)', async () => {
    // A documentation-range address of its own: with Redis storage the bucket is shared by every app.
    const ip = `203.0.113.${Math.floor(Math.random() * 250) + 1}`;
    for (let i = 0; i < 3; i++) {
      expect(
        (await t.http().get('/api/v2/account').set('X-Forwarded-For', ip).set('X-API-Key', `msk_bad_${i}`)).status,
      ).toBe(401);
    }
    expectEnvelope(await t.http().get('/api/v2/templates').set('X-Forwarded-For', ip), 429, 'RATE_LIMITED');
    const other = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
    expectEnvelope(await t.http().get('/api/v2/templates').set('X-Forwarded-For', other), 401, 'UNAUTHORIZED');
  });

  it.each(['1', 'true'])(
    'TRUST_PROXY=%s (hop count or boolean) also takes the client IP from X-Forwarded-For',
    async (trust) => {
      const app = await createTestApp({ env: { THROTTLE_LIMIT: '1', THROTTLE_TTL_SECONDS: '30', TRUST_PROXY: trust } });
      try {
        const ip = `203.0.113.${Math.floor(Math.random() * 250) + 1}`;
        expectEnvelope(await app.http().get('/api/v2/templates').set('X-Forwarded-For', ip), 401, 'UNAUTHORIZED');
        expectEnvelope(await app.http().get('/api/v2/templates').set('X-Forwarded-For', ip), 429, 'RATE_LIMITED');
        const other = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
        expectEnvelope(await app.http().get('/api/v2/templates').set('X-Forwarded-For', other), 401, 'UNAUTHORIZED');
      } finally {
        await app.close();
      }
    },
  );
});
