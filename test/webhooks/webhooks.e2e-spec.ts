import { DataSource } from 'typeorm';
import { WebhooksService } from '../../src/webhooks/webhooks.service';
import { SecretBox } from '../../src/common/secret-box';
import { TestApp, waitFor } from '../support/app';
import { startReceiver, WebhookReceiver } from '../support/webhook-receiver';
import { appWithReceiverPerTest, deliveries, FAST, idOf, queueTest, settle } from '../support/webhooks-helpers';
import { accountIdOf } from '../../src/common/account-id';

// The deliveries list, leases and retention: webhooks-deliveries.e2e-spec.ts; restarts and replicas:
// webhooks-replicas.e2e-spec.ts; WEBHOOK_ALLOW_INSECURE=false: webhooks-insecure.e2e-spec.ts.

describe('Webhooks (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  appWithReceiverPerTest(FAST, { app: (x) => (t = x), receiver: (x) => (receiver = x) });

  describe('settings: /api/v2/webhooks/chatapp-web', () => {
    it('PUT creates (full key), GET masks it, PUT again keeps it, rotate replaces it, DELETE removes it', async () => {
      const acc = await t.createAccount();
      const put = await t
        .http()
        .put('/api/v2/webhooks/chatapp-web')
        .set('X-API-Key', acc.key)
        .send({ url: receiver.url });
      expect(put.status).toBe(200);
      expect(put.body).toEqual({
        success: true,
        data: { url: receiver.url, webhookApiKey: expect.stringMatching(/^whk_[A-Za-z0-9_-]{32}$/) },
      });
      const key = put.body.data.webhookApiKey as string;

      const get = await t.http().get('/api/v2/webhooks/chatapp-web').set('X-API-Key', acc.key);
      expect(get.status).toBe(200);
      expect(get.body).toEqual({
        success: true,
        data: { url: receiver.url, webhookApiKey: `whk_****${key.slice(-4)}` },
      });

      const stored = await t.app
        .get(DataSource)
        .query('SELECT sealed_secret FROM webhook_endpoints WHERE account_id = ?', [acc.id]);
      expect(stored[0].sealed_secret).not.toContain(key);
      expect(t.app.get(SecretBox).open(stored[0].sealed_secret)).toBe(key);

      const newUrl = `${receiver.url}?v=2`;
      const put2 = await t.http().put('/api/v2/webhooks/chatapp-web').set('X-API-Key', acc.key).send({ url: newUrl });
      expect(put2.status).toBe(200);
      expect(put2.body.data).toEqual({ url: newUrl, webhookApiKey: `whk_****${key.slice(-4)}` });
      expect(await t.app.get(WebhooksService).getChatappWebTarget(accountIdOf(acc.id))).toEqual({
        url: newUrl,
        sealedSecret: expect.any(String),
      });

      const rotated = await t.http().post('/api/v2/webhooks/chatapp-web/rotate-key').set('X-API-Key', acc.key);
      expect(rotated.status).toBe(200);
      const key2 = rotated.body.data.webhookApiKey as string;
      expect(key2).toMatch(/^whk_/);
      expect(key2).not.toBe(key);
      expect(
        (await t.http().get('/api/v2/webhooks/chatapp-web').set('X-API-Key', acc.key)).body.data.webhookApiKey,
      ).toBe(`whk_****${key2.slice(-4)}`);

      const del = await t.http().delete('/api/v2/webhooks/chatapp-web').set('X-API-Key', acc.key);
      expect(del.status).toBe(200);
      expect(del.body).toEqual({ success: true, data: { deleted: true } });
      expect(await t.app.get(WebhooksService).getChatappWebTarget(accountIdOf(acc.id))).toBeNull();
      for (const [method, path] of [
        ['get', ''],
        ['delete', ''],
        ['post', '/rotate-key'],
        ['post', '/test'],
      ] as const) {
        const res = await t.http()[method](`/api/v2/webhooks/chatapp-web${path}`).set('X-API-Key', acc.key);
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('NOT_FOUND');
      }
    });

    it('test event: sent with the key as Bearer and X-API-Key, event headers, JSON body', async () => {
      const acc = await t.createAccount();
      const { deliveryId, key } = await queueTest(t, acc, receiver.url);
      const call = await waitFor(async () => receiver.calls[0], { what: 'test event' });
      expect(call.headers['authorization']).toBe(`Bearer ${key}`);
      expect(call.headers['x-api-key']).toBe(key);
      expect(call.headers['x-service-event']).toBe('webhook.test');
      expect(call.headers['x-service-delivery-id']).toBe(deliveryId);
      expect(call.headers['content-type']).toBe('application/json');
      expect(call.body).toEqual({
        event: 'webhook.test',
        timestamp: expect.any(String),
        livemode: true,
        data: { message: expect.any(String) },
      });
      const d = await settle(t, acc.key, deliveryId);
      expect(d).toMatchObject({ status: 'delivered', attemptCount: 1, lastError: null });
      expect(d.attempts).toEqual([
        {
          attempt: 1,
          at: expect.any(String),
          httpStatus: 200,
          durationMs: expect.any(Number),
          success: true,
          error: null,
        },
      ]);
    });

    it('a hostname target goes through the guarded DNS lookup (localhost allowed only because insecure targets are on here)', async () => {
      const acc = await t.createAccount();
      const { deliveryId } = await queueTest(t, acc, receiver.url.replace('127.0.0.1', 'localhost'));
      const d = await settle(t, acc.key, deliveryId);
      expect(d).toMatchObject({ status: 'delivered', attemptCount: 1 });
      expect(receiver.calls.map(idOf)).toEqual([deliveryId]);
    });

    it('owner only for settings; 400 for a bad url; deliveries need messages:read', async () => {
      const acc = await t.createAccount();
      const member = await t.memberKey(acc.id, ['messages:create', 'messages:read', 'api_keys:read']);
      for (const [method, path] of [
        ['put', ''],
        ['get', ''],
        ['delete', ''],
        ['post', '/rotate-key'],
        ['post', '/test'],
      ] as const) {
        const res = await t
          .http()
          [method](`/api/v2/webhooks/chatapp-web${path}`)
          .set('X-API-Key', member)
          .send({ url: receiver.url });
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('FORBIDDEN');
      }
      for (const body of [{}, { url: 'nope' }, { url: 'ftp://x.example/y' }, { url: 5 }]) {
        const res = await t.http().put('/api/v2/webhooks/chatapp-web').set('X-API-Key', acc.key).send(body);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_ERROR');
        expect(res.body.error).toContain('url');
      }
      expect((await t.http().get('/api/v2/webhooks/deliveries').set('X-API-Key', member)).status).toBe(200);
      const noRead = await t.memberKey(acc.id, ['messages:create']);
      expect((await t.http().get('/api/v2/webhooks/deliveries').set('X-API-Key', noRead)).status).toBe(403);
    });
  });

  describe('delivery engine', () => {
    it('receiver failing twice then 200 -> 3 attempts, same delivery id, growing backoff', async () => {
      receiver.respond((_c, n) => (n <= 2 ? 500 : 200));
      const acc = await t.createAccount();
      const { deliveryId } = await queueTest(t, acc, receiver.url);
      const d = await settle(t, acc.key, deliveryId);
      expect(d.status).toBe('delivered');
      expect(receiver.calls).toHaveLength(3);
      expect(new Set(receiver.calls.map(idOf))).toEqual(new Set([deliveryId]));
      expect(receiver.calls.map((c) => c.raw)).toEqual(Array(3).fill(receiver.calls[0].raw));
      expect(d.attempts.map((a) => [a.attempt, a.httpStatus, a.success, a.error])).toEqual([
        [1, 500, false, 'HTTP 500'],
        [2, 500, false, 'HTTP 500'],
        [3, 200, true, null],
      ]);
      // WEBHOOK_RETRY_BASE_MS=50 in tests: first retry waits >= 50 ms, the second >= 150 ms.
      const [a, b, c] = receiver.calls.map((x) => x.at);
      expect(b - a).toBeGreaterThanOrEqual(45);
      expect(c - b).toBeGreaterThanOrEqual(145);
    });

    it('receiver always failing -> 4 attempts then failed in the deliveries list', async () => {
      receiver.respond(() => 503);
      const acc = await t.createAccount();
      const { deliveryId } = await queueTest(t, acc, receiver.url);
      const d = await settle(t, acc.key, deliveryId);
      expect(d.status).toBe('failed');
      expect(d.attemptCount).toBe(4);
      expect(d.attempts.map((x) => x.attempt)).toEqual([1, 2, 3, 4]);
      expect(d.attempts.every((x) => x.httpStatus === 503 && x.error === 'HTTP 503' && !x.success)).toBe(true);
      expect(receiver.calls).toHaveLength(4);
      expect(new Set(receiver.calls.map(idOf))).toEqual(new Set([deliveryId]));
      const failed = await deliveries(t, acc.key, '?status=failed');
      expect(failed.map((x) => x.id)).toEqual([deliveryId]);
      expect(await deliveries(t, acc.key, '?status=delivered')).toEqual([]);
    });

    it('a slow receiver does not hold up other deliveries', async () => {
      const slow = await startReceiver(() => ({ status: 200, delayMs: 350 }));
      try {
        const acc = await t.createAccount();
        const svc = t.app.get(WebhooksService);
        const sealedSecret = t.app.get(SecretBox).seal('k');
        const slowId = (
          await svc.enqueue(null, {
            accountId: accountIdOf(acc.id),
            url: slow.url,
            event: 'x.slow',
            body: {},
            sealedSecret,
            apiKeyHeader: false,
          })
        ).deliveryId;
        const slowCall = await waitFor(async () => slow.calls[0], { what: 'slow call started' });
        await svc.enqueue(null, {
          accountId: accountIdOf(acc.id),
          url: receiver.url,
          event: 'x.fast',
          body: {},
          sealedSecret,
          apiKeyHeader: false,
        });
        const fastCall = await waitFor(async () => receiver.calls[0], { what: 'fast call' });
        expect(fastCall.at).toBeLessThan(slowCall.at + 350);
        expect((await settle(t, acc.key, slowId)).status).toBe('delivered');
      } finally {
        await slow.close();
      }
    });

    it('a timeout counts as a failed attempt and is retried', async () => {
      receiver.respond((_c, n) => (n === 1 ? { status: 200, delayMs: 1500 } : 200));
      const acc = await t.createAccount();
      const { deliveryId } = await queueTest(t, acc, receiver.url);
      const d = await settle(t, acc.key, deliveryId);
      expect(d.status).toBe('delivered');
      expect(d.attempts.map((x) => [x.httpStatus, x.error])).toEqual([
        [null, 'timeout after 400 ms'],
        [200, null],
      ]);
      expect(d.attempts[0].durationMs).toBeGreaterThanOrEqual(390);
    });

    it('redirects are not followed: a 3xx is a failed attempt', async () => {
      const other = await startReceiver();
      try {
        receiver.respond((_c, n) => (n === 1 ? { status: 302, location: other.url } : 200));
        const acc = await t.createAccount();
        const { deliveryId } = await queueTest(t, acc, receiver.url);
        const d = await settle(t, acc.key, deliveryId);
        expect(d.attempts.map((x) => [x.httpStatus, x.error])).toEqual([
          [302, 'HTTP 302 (redirects are not followed)'],
          [200, null],
        ]);
        expect(other.calls).toHaveLength(0);
      } finally {
        await other.close();
      }
    });

    it('connection errors are retried up to 4 attempts and recorded', async () => {
      const gone = await startReceiver();
      const url = gone.url;
      await gone.close();
      const acc = await t.createAccount();
      const { deliveryId } = await queueTest(t, acc, url);
      const d = await settle(t, acc.key, deliveryId);
      expect(d.status).toBe('failed');
      expect(d.attempts).toHaveLength(4);
      expect(
        d.attempts.every((x) => x.httpStatus === null && /^connection error: ECONNREFUSED/.test(x.error ?? '')),
      ).toBe(true);
    });
  });
});
