import { DataSource } from 'typeorm';
import { createTestApp, TestApp } from './app';
import { startReceiver, WebhookReceiver } from './webhook-receiver';

/** The app (fast webhook delivery) and a webhook receiver shared by the SMS sender suites. */
export async function startSendersApp(): Promise<{ t: TestApp; receiver: WebhookReceiver }> {
  const t = await createTestApp({ env: { WEBHOOK_DELIVERY_INTERVAL_MS: '25' } });
  const receiver = await startReceiver();
  return { t, receiver };
}

/** Request and lookup helpers; the getters are read at call time (the app starts in beforeAll). */
export function senderHelpers(app: () => TestApp, hooks: () => WebhookReceiver) {
  return {
    create: (key: string, body: Record<string, unknown>) =>
      app().http().post('/api/v2/sms-senders').set('X-API-Key', key).send(body),
    storedRow: async (id: string) =>
      (await app().app.get(DataSource).query('SELECT * FROM sms_senders WHERE id = ?', [id]))[0] as Record<
        string,
        unknown
      >,
    callsFor: (senderId: string) =>
      hooks().calls.filter(
        (c) => (c.body as { data?: { smsSender?: { id?: string } } })?.data?.smsSender?.id === senderId,
      ),
  };
}
