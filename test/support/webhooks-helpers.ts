import { createTestApp, TestAccount, TestApp, waitFor } from './app';
import { ReceivedCall, startReceiver, WebhookReceiver } from './webhook-receiver';

// Shared by the webhooks*.e2e-spec.ts suites (and appWithReceiverPerTest by webhook-endpoints*).

export const FAST = { WEBHOOK_DELIVERY_INTERVAL_MS: '20', WEBHOOK_TIMEOUT_MS: '400', WEBHOOK_PRUNE_INTERVAL_MS: '50' };

export interface DeliveryView {
  id: string;
  event: string;
  status: string;
  attemptCount: number;
  lastError: string | null;
  attempts: {
    attempt: number;
    at: string;
    httpStatus: number | null;
    durationMs: number;
    success: boolean;
    error: string | null;
  }[];
}

export async function deliveries(t: TestApp, key: string, query = ''): Promise<DeliveryView[]> {
  const res = await t.http().get(`/api/v2/webhooks/deliveries${query}`).set('X-API-Key', key);
  if (res.status !== 200) throw new Error(`deliveries ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.deliveries as DeliveryView[];
}

export async function settle(t: TestApp, key: string, deliveryId: string): Promise<DeliveryView> {
  return waitFor(async () => (await deliveries(t, key)).find((d) => d.id === deliveryId && d.status !== 'pending'), {
    what: `delivery ${deliveryId} settled`,
  });
}

/** Sets the web-session webhook and queues a test event; returns the delivery id and key. */
export async function queueTest(
  t: TestApp,
  acc: TestAccount,
  url: string,
): Promise<{ deliveryId: string; key: string }> {
  const put = await t.http().put('/api/v2/webhooks/chatapp-web').set('X-API-Key', acc.key).send({ url });
  if (put.status !== 200) throw new Error(`put ${put.status} ${JSON.stringify(put.body)}`);
  const res = await t.http().post('/api/v2/webhooks/chatapp-web/test').set('X-API-Key', acc.key);
  if (res.status !== 202) throw new Error(`test ${res.status} ${JSON.stringify(res.body)}`);
  return { deliveryId: res.body.data.deliveryId as string, key: put.body.data.webhookApiKey as string };
}

export const idOf = (c: ReceivedCall) => c.headers['x-service-delivery-id'];

/**
 * The hooks of a suite on one app (started with `env` before all its tests, closed after) and a fresh
 * receiver for each test. `bind` hands both to the suite's own variables, so its tests read plain
 * `t` and `receiver`.
 */
export function appWithReceiverPerTest(
  env: Record<string, string>,
  bind: { app: (t: TestApp) => void; receiver: (r: WebhookReceiver) => void },
): void {
  let t: TestApp;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    t = await createTestApp({ env });
    bind.app(t);
  });
  beforeEach(async () => {
    receiver = await startReceiver();
    bind.receiver(receiver);
  });
  afterEach(async () => {
    await receiver.close();
  });
  afterAll(async () => {
    await t.close();
  });
}
