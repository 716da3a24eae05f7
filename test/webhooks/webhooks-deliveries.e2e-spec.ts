import { DataSource } from 'typeorm';
import { WebhooksService } from '../../src/webhooks/webhooks.service';
import { SecretBox } from '../../src/common/secret-box';
import { TestApp, waitFor } from '../support/app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { appWithReceiverPerTest, deliveries, DeliveryView, FAST, queueTest, settle } from '../support/webhooks-helpers';
import { accountIdOf } from '../../src/common/account-id';

// The rest of the delivery engine's tests (one app like Webhooks (e2e), split off for length).
describe('Webhooks (e2e): deliveries list, leases and retention', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  appWithReceiverPerTest(FAST, { app: (x) => (t = x), receiver: (x) => (receiver = x) });

  describe('delivery engine', () => {
    it('deliveries list: newest first, cursor paging visits each once, bad status/cursor/limit -> 400, other accounts invisible', async () => {
      const acc = await t.createAccount();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await queueTest(t, acc, receiver.url)).deliveryId);
      await waitFor(async () => (await deliveries(t, acc.key, '?status=delivered')).length === 5, {
        what: 'all delivered',
      });
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
      const foreign = await t
        .http()
        .get(`/api/v2/webhooks/deliveries?cursor=${encodeURIComponent(first.body.data.nextCursor)}`)
        .set('X-API-Key', other.key);
      expect(foreign.status).toBe(400);
      for (const q of [
        '?status=sent',
        '?limit=0',
        '?limit=101',
        '?limit=x',
        '?limit=1.5',
        '?limit=-1',
        '?limit=1&limit=2',
        '?cursor=tampered.sig',
      ]) {
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
      expect(limit).toMatchObject({
        in: 'query',
        required: false,
        schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
      });
      expect(limit.schema.pattern).toBeUndefined();
      const settings = doc.paths['/api/v2/webhooks/chatapp-web'];
      expect([settings.put, settings.get, settings.delete, list].map((op) => op.operationId)).toEqual([
        'setWebSessionWebhook',
        'getWebSessionWebhook',
        'deleteWebSessionWebhook',
        'listWebhookDeliveries',
      ]);
      expect(doc.paths['/api/v2/webhooks/chatapp-web/rotate-key'].post.operationId).toBe('rotateWebSessionWebhookKey');
      expect(
        doc.paths['/api/v2/webhooks/chatapp-web/test'].post.responses['202'].content['application/json'].schema
          .properties.data,
      ).toEqual({ $ref: '#/components/schemas/WebhookTestQueued' });
      expect(settings.get.responses['404'].content['application/json'].schema.allOf[1].properties.code.enum).toEqual([
        'NOT_FOUND',
      ]);
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
        for (const [event, attempts] of [
          ['x.leased', 1],
          ['x.last', 4],
        ] as const) {
          const r = await svc.enqueue(em, {
            accountId: accountIdOf(acc.id),
            url: receiver.url,
            event,
            body: {},
            sealedSecret,
            apiKeyHeader: false,
          });
          await em.query(
            "UPDATE webhook_deliveries SET lease_owner = 'dead-replica', lease_expires_at = ?, attempt_count = ? WHERE id = ?",
            [expires, attempts, r.deliveryId],
          );
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
      await ds.query('UPDATE webhook_deliveries SET completed_at = ? WHERE id = ?', [
        Date.now() - 31 * 86_400_000,
        oldOne,
      ]);
      await waitFor(async () => (await deliveries(t, acc.key)).every((d) => d.id !== oldOne), {
        what: 'old delivery pruned',
      });
      expect((await deliveries(t, acc.key)).map((d) => d.id)).toEqual([recent]);
      expect(await ds.query('SELECT id FROM webhook_attempts WHERE delivery_id = ?', [oldOne])).toEqual([]);
    });

    it('enqueue inside a rolled-back transaction leaves no delivery', async () => {
      const acc = await t.createAccount();
      const svc = t.app.get(WebhooksService);
      const sealedSecret = t.app.get(SecretBox).seal('k');
      await expect(
        t.app.get(DataSource).transaction(async (em) => {
          await svc.enqueue(em, {
            accountId: accountIdOf(acc.id),
            url: receiver.url,
            event: 'x.rolled_back',
            body: {},
            sealedSecret,
            apiKeyHeader: false,
          });
          throw new Error('rollback');
        }),
      ).rejects.toThrow('rollback');
      const { deliveryId } = await svc.enqueue(null, {
        accountId: accountIdOf(acc.id),
        url: receiver.url,
        event: 'x.committed',
        body: { a: 1 },
        sealedSecret,
        apiKeyHeader: false,
      });
      await settle(t, acc.key, deliveryId);
      expect(receiver.calls.map((c) => c.headers['x-service-event'])).toEqual(['x.committed']);
      expect(receiver.calls[0].headers['authorization']).toBe('Bearer k');
      expect(receiver.calls[0].headers['x-api-key']).toBeUndefined();
      expect(receiver.calls[0].raw).toBe('{"a":1,"livemode":true}');
    });
  });
});
