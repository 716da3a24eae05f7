import { DataSource } from 'typeorm';
import { WebhookDeliveryWorker } from '../../src/webhooks/webhook-delivery.worker';
import { createTestApp, TestAccount, waitFor } from '../support/app';
import { startReceiver, WebhookReceiver } from '../support/webhook-receiver';
import { deliveries, FAST, idOf, queueTest, settle } from '../support/webhooks-helpers';

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
      expect((await deliveries(a, acc.key)).map((d) => [d.id, d.status, d.attemptCount])).toEqual([
        [deliveryId, 'pending', 0],
      ]);
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
      await waitFor(async () => (await deliveries(a, acc.key))[0]?.attemptCount === 1, {
        what: 'first attempt recorded',
      });
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
      const put = await a
        .http()
        .put('/api/v2/webhooks/chatapp-web')
        .set('X-API-Key', acc.key)
        .send({ url: receiver.url });
      expect(put.status).toBe(200);
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) {
        const app = i % 2 ? a : b;
        ids.push(
          (await app.http().post('/api/v2/webhooks/chatapp-web/test').set('X-API-Key', acc.key)).body.data.deliveryId,
        );
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
