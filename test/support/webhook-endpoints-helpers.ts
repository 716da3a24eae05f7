import { UnitOfWork } from '../../src/database/unit-of-work';
import { DomainEvent, EVENT_SINK, EventSink } from '../../src/messaging/events/event-sink';
import { BULK_TEST_ENV_PATIENT } from './bulk-helpers';
import { TestAccount, TestApp, waitFor } from './app';
import { ReceivedCall, WebhookReceiver } from './webhook-receiver';

// Shared by the webhook-endpoints*.e2e-spec.ts suites.

// Endpoint deliveries: 3 attempts (0, 40 ms, 80 ms); an endpoint is disabled after 2 failed deliveries.
export const ENV = {
  ...BULK_TEST_ENV_PATIENT,
  WEBHOOK_DELIVERY_INTERVAL_MS: '20',
  WEBHOOK_TIMEOUT_MS: '2000',
  WEBHOOK_ENDPOINT_RETRY_SCHEDULE_MS: '0,40,80',
  WEBHOOK_DISABLE_AFTER_FAILURES: '2',
};

export interface Delivery {
  id: string;
  event: string;
  endpointId: string | null;
  webhookId: string;
  status: string;
  attempts: { attempt: number; at: string; httpStatus: number | null; success: boolean }[];
}

export const headersOf = (c: ReceivedCall): Record<string, string> => ({
  'webhook-id': String(c.headers['webhook-id']),
  'webhook-timestamp': String(c.headers['webhook-timestamp']),
  'webhook-signature': String(c.headers['webhook-signature']),
});

/** The suite's request helpers, on the suite's current app and receiver (read at each call). */
export function endpointHelpers(app: () => TestApp, receiver: () => WebhookReceiver) {
  const api = (key: string) => {
    const t = app();
    return {
      create: (body: unknown) =>
        t
          .http()
          .post('/api/v2/webhooks/endpoints')
          .set('X-API-Key', key)
          .send(body as object),
      list: () => t.http().get('/api/v2/webhooks/endpoints').set('X-API-Key', key),
      get: (id: string) => t.http().get(`/api/v2/webhooks/endpoints/${id}`).set('X-API-Key', key),
      patch: (id: string, body: unknown) =>
        t
          .http()
          .patch(`/api/v2/webhooks/endpoints/${id}`)
          .set('X-API-Key', key)
          .send(body as object),
      del: (id: string) => t.http().delete(`/api/v2/webhooks/endpoints/${id}`).set('X-API-Key', key),
      rotate: (id: string) => t.http().post(`/api/v2/webhooks/endpoints/${id}/rotate-secret`).set('X-API-Key', key),
      test: (id: string) => t.http().post(`/api/v2/webhooks/endpoints/${id}/test`).set('X-API-Key', key),
      deliveries: (q = '') => t.http().get(`/api/v2/webhooks/deliveries${q}`).set('X-API-Key', key),
      redeliver: (id: string) => t.http().post(`/api/v2/webhooks/deliveries/${id}/redeliver`).set('X-API-Key', key),
    };
  };

  async function endpoint(
    acc: TestAccount,
    events: string[] = ['*'],
    url = receiver().url,
  ): Promise<{ id: string; secret: string }> {
    const res = await api(acc.key).create({ url, events });
    if (res.status !== 201) throw new Error(`create ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data.endpoint as { id: string; secret: string };
  }

  async function settled(acc: TestAccount, deliveryId: string): Promise<Delivery> {
    return waitFor(
      async () => {
        const res = await api(acc.key).deliveries('?limit=100');
        return (res.body.data.deliveries as Delivery[]).find((d) => d.id === deliveryId && d.status !== 'pending');
      },
      { what: `delivery ${deliveryId} settled` },
    );
  }

  const record = (events: DomainEvent[]) =>
    app()
      .app.get(UnitOfWork)
      .transaction((tx) => app().app.get<EventSink>(EVENT_SINK).record(tx, events));

  return { api, endpoint, settled, record };
}
