import { DataSource } from 'typeorm';
import { WebhookDeliveryWorker } from '../src/webhooks/webhook-delivery.worker';
import { WebhooksService } from '../src/webhooks/webhooks.service';
import { SecretBox } from '../src/common/secret-box';
import { createTestApp, TestAccount, TestApp, waitFor } from './support/app';
import { ReceivedCall, startReceiver, WebhookReceiver } from './support/webhook-receiver';

const FAST = { WEBHOOK_DELIVERY_INTERVAL_MS: '20', WEBHOOK_TIMEOUT_MS: '400', WEBHOOK_PRUNE_INTERVAL_MS: '50' };

interface DeliveryView {
  id: string;
  event: string;
  status: string;
  attemptCount: number;
  lastError: string | null;
  attempts: { attempt: number; at: string; httpStatus: number | null; durationMs: number; success: boolean; error: string | null }[];
}

async function deliveries(t: TestApp, key: string, query = ''): Promise<DeliveryView[]> {
  const res = await t.http().get(`/api/v2/webhooks/deliveries${query}`).set('X-API-Key', key);
  if (res.status !== 200) throw new Error(`deliveries ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.deliveries as DeliveryView[];
}

async function settle(t: TestApp, key: string, deliveryId: string): Promise<DeliveryView> {
  return waitFor(async () => (await deliveries(t, key)).find((d) => d.id === deliveryId && d.status !== 'pending'), { what: `delivery ${deliveryId} settled` });
}

/** Sets the web-session webhook and queues a test event; returns the delivery id and key. */
async function queueTest(t: TestApp, acc: TestAccount, url: string): Promise<{ deliveryId: string; key: string }> {
  const put = await t.http().put('/api/v2/webhooks/chatapp-web').set('X-API-Key', acc.key).send({ url });
  if (put.status !== 200) throw new Error(`put ${put.status} ${JSON.stringify(put.body)}`);
  const res = await t.http().post('/api/v2/webhooks/chatapp-web/test').set('X-API-Key', acc.key);
  if (res.status !== 202) throw new Error(`test ${res.status} ${JSON.stringify(res.body)}`);
  return { deliveryId: res.body.data.deliveryId as string, key: put.body.data.webhookApiKey as string };
}

const idOf = (c: ReceivedCall) => c.headers['x-service-delivery-id'];

describe('Webhooks (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    t = await createTestApp({ env: FAST });
  });
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });
  afterAll(async () => {
    await t.close();
  });

  describe('settings: /api/v2/webhooks/chatapp-web', () => {
    it('PUT creates (full key), GET masks it, PUT again keeps it, rotate replaces it, DELETE removes it', async () => {
      const acc = await t.createAccount();
      const put = await t.http().put('/api/v2/webhooks/chatapp-web').set('X-API-Key', acc.key).send({ url: receiver.url });
      expect(put.status).toBe(200);
      expect(put.body).toEqual({ success: true, data: { url: receiver.url, webhookApiKey: expect.stringMatching(/^whk_[A-Za-z0-9_-]{32}$/) } });
      const key = put.body.data.webhookApiKey as string;

      const get = await t.http().get('/api/v2/webhooks/chatapp-web').set('X-API-Key', acc.key);
      expect(get.status).toBe(200);
      expect(get.body).toEqual({ success: true, data: { url: receiver.url, webhookApiKey: `whk_****${key.slice(-4)}` } });

      const stored = await t.app.get(DataSource).query('SELECT sealed_secret FROM webhook_endpoints WHERE account_id = ?', [acc.id]);
      expect(stored[0].sealed_secret).not.toContain(key);
      expect(t.app.get(SecretBox).open(stored[0].sealed_secret)).toBe(key);

      const newUrl = `${receiver.url}?v=2`;
      const put2 = await t.http().put('/api/v2/webhooks/chatapp-web').set('X-API-Key', acc.key).send({ url: newUrl });
      expect(put2.status).toBe(200);
      expect(put2.body.data).toEqual({ url: newUrl, webhookApiKey: `whk_****${key.slice(-4)}` });
      expect(await t.app.get(WebhooksService).getChatappWebTarget(acc.id)).toEqual({ url: newUrl, sealedSecret: expect.any(String) });

      const rotated = await t.http().post('/api/v2/webhooks/chatapp-web/rotate-key').set('X-API-Key', acc.key);
      expect(rotated.status).toBe(200);
      const key2 = rotated.body.data.webhookApiKey as string;
      expect(key2).toMatch(/^whk_/);
      expect(key2).not.toBe(key);
      expect((await t.http().get('/api/v2/webhooks/chatapp-web').set('X-API-Key', acc.key)).body.data.webhookApiKey).toBe(`whk_****${key2.slice(-4)}`);

      const del = await t.http().delete('/api/v2/webhooks/chatapp-web').set('X-API-Key', acc.key);
      expect(del.status).toBe(200);
      expect(del.body).toEqual({ success: true, data: { deleted: true } });
      expect(await t.app.get(WebhooksService).getChatappWebTarget(acc.id)).toBeNull();
      for (const [method, path] of [['get', ''], ['delete', ''], ['post', '/rotate-key'], ['post', '/test']] as const) {
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
      expect(call.body).toEqual({ event: 'webhook.test', timestamp: expect.any(String), data: { message: expect.any(String) } });
      const d = await settle(t, acc.key, deliveryId);
      expect(d).toMatchObject({ status: 'delivered', attemptCount: 1, lastError: null });
      expect(d.attempts).toEqual([{ attempt: 1, at: expect.any(String), httpStatus: 200, durationMs: expect.any(Number), success: true, error: null }]);
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
      for (const [method, path] of [['put', ''], ['get', ''], ['delete', ''], ['post', '/rotate-key'], ['post', '/test']] as const) {
        const res = await t.http()[method](`/api/v2/webhooks/chatapp-web${path}`).set('X-API-Key', member).send({ url: receiver.url });
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
        [1, 500, false, 'HTTP 500'], [2, 500, false, 'HTTP 500'], [3, 200, true, null],
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
        const slowId = (await svc.enqueue(null, { accountId: acc.id, url: slow.url, event: 'x.slow', body: {}, sealedSecret, apiKeyHeader: false })).deliveryId;
        const slowCall = await waitFor(async () => slow.calls[0], { what: 'slow call started' });
        await svc.enqueue(null, { accountId: acc.id, url: receiver.url, event: 'x.fast', body: {}, sealedSecret, apiKeyHeader: false });
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
      expect(d.attempts.map((x) => [x.httpStatus, x.error])).toEqual([[null, 'timeout after 400 ms'], [200, null]]);
      expect(d.attempts[0].durationMs).toBeGreaterThanOrEqual(390);
    });

    it('redirects are not followed: a 3xx is a failed attempt', async () => {
      const other = await startReceiver();
      try {
        receiver.respond((_c, n) => (n === 1 ? { status: 302, location: other.url } : 200));
        const acc = await t.createAccount();
        const { deliveryId } = await queueTest(t, acc, receiver.url);
        const d = await settle(t, acc.key, deliveryId);
        expect(d.attempts.map((x) => [x.httpStatus, x.error])).toEqual([[302, 'HTTP 302 (redirects are not followed)'], [200, null]]);
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
      expect(d.attempts.every((x) => x.httpStatus === null && /^connection error: ECONNREFUSED/.test(x.error ?? ''))).toBe(true);
    });

    it('deliveries list: newest first, cursor paging visits each once, bad status/cursor/limit -> 400, other accounts invisible', async () => {
      const acc = await t.createAccount();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await queueTest(t, acc, receiver.url)).deliveryId);
      await waitFor(async () => (await deliveries(t, acc.key, '?status=delivered')).length === 5, { what: 'all delivered' });
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const q: string = `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const res = await t.http().get(`/api/v2/webhooks/deliveries${q}`).set('X-API-Key', acc.key);
        expect(res.status).toBe(200);
        seen.push(...res.body.data.deliveries.map((d: DeliveryView) => d.id));
        expect(res.body.data.hasMore).toBe(res.body.data.nextCursor !== null);
        cursor = res.body.data.nextCursor;
      } while (cursor);
      // Newest first = id order (ids are time-sortable; two made in one millisecond order by their random part).
      expect(seen).toEqual([...ids].sort().reverse());
      expect(new Set(seen)).toEqual(new Set(ids));
      const other = await t.createAccount();
      expect(await deliveries(t, other.key)).toEqual([]);
      const first = await t.http().get('/api/v2/webhooks/deliveries?limit=2').set('X-API-Key', acc.key);
      const foreign = await t.http().get(`/api/v2/webhooks/deliveries?cursor=${encodeURIComponent(first.body.data.nextCursor)}`).set('X-API-Key', other.key);
      expect(foreign.status).toBe(400);
      for (const q of ['?status=sent', '?limit=0', '?limit=101', '?limit=x', '?limit=1.5', '?limit=-1', '?limit=1&limit=2', '?cursor=tampered.sig']) {
        const res = await t.http().get(`/api/v2/webhooks/deliveries${q}`).set('X-API-Key', acc.key);
        expect({ q, status: res.status, code: res.body.code }).toEqual({ q, status: 400, code: 'VALIDATION_ERROR' });
      }
      const all = await t.http().get('/api/v2/webhooks/deliveries?limit=100').set('X-API-Key', acc.key);
      expect(all.status).toBe(200);
      expect(all.body.data.deliveries).toHaveLength(5);
    });

    it('the document types the deliveries limit as the integer 1..100 the route enforces, and every webhook route has an id', async () => {
      const doc = (await t.http().get('/docs-json')).body;
      const list = doc.paths['/api/v2/webhooks/deliveries'].get;
      const limit = list.parameters.find((p: { name: string }) => p.name === 'limit');
      expect(limit).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } });
      expect(limit.schema.pattern).toBeUndefined();
      const settings = doc.paths['/api/v2/webhooks/chatapp-web'];
      expect([settings.put, settings.get, settings.delete, list].map((op) => op.operationId)).toEqual([
        'setWebSessionWebhook', 'getWebSessionWebhook', 'deleteWebSessionWebhook', 'listWebhookDeliveries',
      ]);
      expect(doc.paths['/api/v2/webhooks/chatapp-web/rotate-key'].post.operationId).toBe('rotateWebSessionWebhookKey');
      expect(doc.paths['/api/v2/webhooks/chatapp-web/test'].post.responses['202'].content['application/json'].schema.properties.data).toEqual({ $ref: '#/components/schemas/WebhookTestQueued' });
      expect(settings.get.responses['404'].content['application/json'].schema.allOf[1].properties.code.enum).toEqual(['NOT_FOUND']);
    });

    it('a replica that died holding a lease: the row is retried after the lease expires, or failed if it was the last attempt', async () => {
      const acc = await t.createAccount();
      const svc = t.app.get(WebhooksService);
      const sealedSecret = t.app.get(SecretBox).seal('k');
      const ds = t.app.get(DataSource);
      const expires = Date.now() + 400;
      // Simulate the crash: written in one transaction with a lease held by a dead replica that had started an attempt.
      const [leased, last] = await ds.transaction(async (em) => {
        const out = [];
        for (const [event, attempts] of [['x.leased', 1], ['x.last', 4]] as const) {
          const r = await svc.enqueue(em, { accountId: acc.id, url: receiver.url, event, body: {}, sealedSecret, apiKeyHeader: false });
          await em.query("UPDATE webhook_deliveries SET lease_owner = 'dead-replica', lease_expires_at = ?, attempt_count = ? WHERE id = ?", [expires, attempts, r.deliveryId]);
          out.push(r);
        }
        return out;
      });
      const d = await settle(t, acc.key, leased.deliveryId);
      expect(receiver.calls[0].at).toBeGreaterThanOrEqual(expires);
      expect(d.status).toBe('delivered');
      expect(d.attempts.map((x) => x.attempt)).toEqual([2]);
      const f = await settle(t, acc.key, last.deliveryId);
      expect(f).toMatchObject({ status: 'failed', lastError: 'attempt interrupted (lease expired)' });
      expect(receiver.calls.map((c) => c.headers['x-service-event'])).toEqual(['x.leased']);
    });

    it('finished deliveries older than the retention period are pruned with their attempts; recent ones stay', async () => {
      const acc = await t.createAccount();
      const oldOne = (await queueTest(t, acc, receiver.url)).deliveryId;
      const recent = (await queueTest(t, acc, receiver.url)).deliveryId;
      await settle(t, acc.key, oldOne);
      await settle(t, acc.key, recent);
      const ds = t.app.get(DataSource);
      await ds.query('UPDATE webhook_deliveries SET completed_at = ? WHERE id = ?', [Date.now() - 31 * 86_400_000, oldOne]);
      await waitFor(async () => (await deliveries(t, acc.key)).every((d) => d.id !== oldOne), { what: 'old delivery pruned' });
      expect((await deliveries(t, acc.key)).map((d) => d.id)).toEqual([recent]);
      expect(await ds.query('SELECT id FROM webhook_attempts WHERE delivery_id = ?', [oldOne])).toEqual([]);
    });

    it('enqueue inside a rolled-back transaction leaves no delivery', async () => {
      const acc = await t.createAccount();
      const svc = t.app.get(WebhooksService);
      const sealedSecret = t.app.get(SecretBox).seal('k');
      await expect(
        t.app.get(DataSource).transaction(async (em) => {
          await svc.enqueue(em, { accountId: acc.id, url: receiver.url, event: 'x.rolled_back', body: {}, sealedSecret, apiKeyHeader: false });
          throw new Error('rollback');
        }),
      ).rejects.toThrow('rollback');
      const { deliveryId } = await svc.enqueue(null, { accountId: acc.id, url: receiver.url, event: 'x.committed', body: { a: 1 }, sealedSecret, apiKeyHeader: false });
      await settle(t, acc.key, deliveryId);
      expect(receiver.calls.map((c) => c.headers['x-service-event'])).toEqual(['x.committed']);
      expect(receiver.calls[0].headers['authorization']).toBe('Bearer k');
      expect(receiver.calls[0].headers['x-api-key']).toBeUndefined();
      expect(receiver.calls[0].raw).toBe('{"a":1}');
    });
  });
});

describe('Webhooks across restarts and replicas (e2e)', () => {
  let receiver: WebhookReceiver;

  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });

  it('a delivery pending across an app restart is delivered after it', async () => {
    const a = await createTestApp({ env: { ...FAST, SCHEDULERS_ENABLED: 'false' } });
    let deliveryId: string;
    let acc: TestAccount;
    try {
      acc = await a.createAccount();
      deliveryId = (await queueTest(a, acc, receiver.url)).deliveryId;
      expect((await deliveries(a, acc.key)).map((d) => [d.id, d.status, d.attemptCount])).toEqual([[deliveryId, 'pending', 0]]);
    } finally {
      await a.close({ keepDatabase: true });
    }
    expect(receiver.calls).toHaveLength(0);
    const b = await createTestApp({ env: FAST, databaseUrl: a.databaseUrl });
    try {
      const d = await settle(b, acc.key, deliveryId);
      expect(d.status).toBe('delivered');
      expect(receiver.calls.map(idOf)).toEqual([deliveryId]);
    } finally {
      await b.close();
    }
  });

  it('a delivery mid-retry when the app stops resumes after the restart with the same id', async () => {
    receiver.respond(() => 500);
    const a = await createTestApp({ env: { ...FAST, WEBHOOK_RETRY_BASE_MS: '600' } });
    let acc: TestAccount;
    let deliveryId: string;
    try {
      acc = await a.createAccount();
      deliveryId = (await queueTest(a, acc, receiver.url)).deliveryId;
      await waitFor(async () => (await deliveries(a, acc.key))[0]?.attemptCount === 1, { what: 'first attempt recorded' });
    } finally {
      await a.close({ keepDatabase: true });
    }
    receiver.respond(() => 200);
    const b = await createTestApp({ env: FAST, databaseUrl: a.databaseUrl });
    try {
      const d = await settle(b, acc.key, deliveryId);
      expect(d.status).toBe('delivered');
      expect(d.attempts.map((x) => x.httpStatus)).toEqual([500, 200]);
      expect(new Set(receiver.calls.map(idOf))).toEqual(new Set([deliveryId]));
    } finally {
      await b.close();
    }
  });

  it('two replicas on one database never deliver one attempt twice', async () => {
    // Loops off: the test drives both replicas' ticks at the same moment, so both select the same due
    // rows and only the conditional lease UPDATE keeps them apart.
    // A generous timeout: a POST that outlives it counts as failed and is retried (at-least-once by
    // design), which on a loaded machine would look like a double delivery this test is not about.
    const env = { ...FAST, SCHEDULERS_ENABLED: 'false', WEBHOOK_DELIVERY_BATCH: '50', WEBHOOK_TIMEOUT_MS: '10000' };
    const a = await createTestApp({ env });
    const b = await createTestApp({ env, databaseUrl: a.databaseUrl });
    try {
      const acc = await a.createAccount();
      const put = await a.http().put('/api/v2/webhooks/chatapp-web').set('X-API-Key', acc.key).send({ url: receiver.url });
      expect(put.status).toBe(200);
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) {
        const app = i % 2 ? a : b;
        ids.push((await app.http().post('/api/v2/webhooks/chatapp-web/test').set('X-API-Key', acc.key)).body.data.deliveryId);
      }
      const workers = [a, b].map((x) => x.app.get(WebhookDeliveryWorker));
      await waitFor(
        async () => {
          await Promise.all([...workers, ...workers].map((w) => w.tick()));
          return (await deliveries(a, acc.key, '?status=delivered&limit=100')).length === 30;
        },
        { what: '30 delivered', timeoutMs: 30000 },
      );
      expect(receiver.calls.map(idOf).sort()).toEqual([...ids].sort());
      const attempts = await a.app.get(DataSource).query('SELECT COUNT(*) AS n FROM webhook_attempts');
      expect(Number(attempts[0].n)).toBe(30);
    } finally {
      await b.close({ keepDatabase: true });
      await a.close();
    }
  });
});

describe('Webhooks with WEBHOOK_ALLOW_INSECURE=false (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    t = await createTestApp({ env: { ...FAST, WEBHOOK_ALLOW_INSECURE: 'false' } });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it.each(['http://93.184.215.14/hook', 'https://127.0.0.1/hook', 'https://localhost/hook', 'https://192.168.0.10/x', 'https://[fd00::1]/x', 'https://[::ffff:127.0.0.1]/x'])(
    'PUT refuses %s',
    async (url) => {
      const acc = await t.createAccount();
      const res = await t.http().put('/api/v2/webhooks/chatapp-web').set('X-API-Key', acc.key).send({ url });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
      expect(await t.app.get(WebhooksService).getChatappWebTarget(acc.id)).toBeNull();
    },
  );

  it('the http:// receiver URL itself is refused', async () => {
    const acc = await t.createAccount();
    const res = await t.http().put('/api/v2/webhooks/chatapp-web').set('X-API-Key', acc.key).send({ url: receiver.url });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('https');
  });

  it('send time: a queued delivery to a private address fails without any request being made', async () => {
    const acc = await t.createAccount();
    const svc = t.app.get(WebhooksService);
    const sealedSecret = t.app.get(SecretBox).seal('k');
    const port = new URL(receiver.url).port;
    const ids = [];
    // A URL stored while insecure targets were allowed, or one whose DNS now points inside.
    for (const url of [`https://127.0.0.1:${port}/hook`, `https://localhost:${port}/hook`, receiver.url]) {
      ids.push((await svc.enqueue(null, { accountId: acc.id, url, event: 'x.private', body: {}, sealedSecret, apiKeyHeader: false })).deliveryId);
    }
    for (const id of ids) {
      const d = await settle(t, acc.key, id);
      expect(d.status).toBe('failed');
      expect(d.attempts).toHaveLength(1);
      expect(d.attempts[0].error).toMatch(/^target refused/);
    }
    expect(receiver.calls).toHaveLength(0);
  });
});
