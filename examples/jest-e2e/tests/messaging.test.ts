import { randomInt, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { MessagingClient } from '../../../clients/typescript';
import { SUBSCRIBED, type EventData, type EventType } from '../support/events';
import { deliverable, rejectedAtSend, undeliverable } from '../support/numbers';
import { poll } from '../support/poll';
import { client, settings, type Settings } from '../support/settings';
import { WebhookReceiver, type ReceivedEvent } from '../support/webhook-receiver';

/**
 * What an integration checks before it goes live, with a test key (`msk_test_...`): every send goes
 * to the sandbox and is paid from the test balance; events come to a local endpoint, signed.
 */
describe('Messaging integration in test mode', () => {
  let s: Settings;
  let api: MessagingClient;
  let receiver: WebhookReceiver;
  let endpointId: string | undefined;

  /** The first `type` event (received or to come) whose data `match` accepts, within MESSAGING_WAIT_MS. */
  const waitForEvent = <K extends EventType>(
    type: K,
    match: (data: EventData[K], e: ReceivedEvent<EventData[K]>) => boolean,
  ) => receiver.waitFor<EventData[K]>(type, (e) => e.body.type === type && match(e.body.data, e), s.waitMs);

  /** What every event of a test key's account says (its signature was verified on arrival). */
  const expectTestModeEvent = (e: ReceivedEvent) => {
    expect(e.headers['webhook-mode']).toBe('test');
    expect(e.body.livemode).toBe(false);
  };

  const fail = (what: string, error: unknown): never => {
    throw new Error(`${what}: ${JSON.stringify(error)}`);
  };

  beforeAll(async () => {
    s = settings();
    api = client(s);
    // A test key reads its account's test mode: refuse to go on with anything else.
    const account = await api.GET('/api/v2/account');
    if (!account.data) fail('GET /api/v2/account', account.error);
    if (account.data?.data.livemode !== false)
      throw new Error('MESSAGING_TEST_KEY does not read a test mode (livemode is not false)');

    receiver = await WebhookReceiver.start();
    const created = await api.POST('/api/v2/webhooks/endpoints', {
      body: { url: receiver.url, events: SUBSCRIBED, description: 'jest-e2e example (deleted when the run ends)' },
    });
    if (!created.data) return fail('POST /api/v2/webhooks/endpoints', created.error);
    endpointId = created.data.data.endpoint.id;
    receiver.useSecret(created.data.data.endpoint.secret);
  });

  afterAll(async () => {
    try {
      if (endpointId) {
        const res = await api.DELETE('/api/v2/webhooks/endpoints/{id}', { params: { path: { id: endpointId } } });
        if (!res.data) fail(`DELETE /api/v2/webhooks/endpoints/${endpointId}`, res.error);
      }
    } finally {
      await receiver?.close();
    }
  });

  it('a message is delivered: its message.delivered event arrives signed and in test mode', async () => {
    const to = deliverable();
    const sent = await api.POST('/api/v2/messages/send', {
      body: { to, channel: 'local_sms', messageType: 'free_text', content: { text: 'Your order #1042 has shipped' } },
    });
    if (!sent.data) return fail('POST /api/v2/messages/send', sent.error);
    const [message] = sent.data.data.messages;
    expect(message).toMatchObject({ to, status: 'sent', livemode: false });

    // The sandbox's receipt comes a moment later; the event is what an integration acts on.
    const event = await waitForEvent('message.delivered', (m) => m.id === message.id);
    expectTestModeEvent(event);
    expect(event.body.data).toMatchObject({ id: message.id, to, status: 'delivered', livemode: false });

    const read = await api.GET('/api/v2/messages/{id}', { params: { path: { id: message.id } } });
    if (!read.data) return fail(`GET /api/v2/messages/${message.id}`, read.error);
    expect(read.data.data).toMatchObject({ id: message.id, status: 'delivered', livemode: false });
    expect(receiver.refused).toEqual([]);
  });

  it('a bulk job with a number the sandbox rejects completes with one failed row; retry-failed sends that row again', async () => {
    const good = [deliverable(), deliverable()];
    const rejected = rejectedAtSend();
    const lost = undeliverable();
    const created = await api.POST('/api/v2/messages/bulk', {
      params: { header: { 'Idempotency-Key': `jest-e2e-${randomUUID()}` } },
      body: {
        name: 'jest-e2e example',
        messagesPerSecond: 10,
        // Receipts at once instead of after 1-3 s; the pace stays real.
        testOptions: { instantReceipts: true },
        messages: [...good, rejected, lost].map((to) => ({
          to,
          channel: 'local_sms' as const,
          messageType: 'free_text' as const,
          content: { text: 'Our November offers are live' },
        })),
      },
    });
    if (!created.data) return fail('POST /api/v2/messages/bulk', created.error);
    const jobId = created.data.id;

    const completed = await waitForEvent('bulk_job.completed', (job) => job.id === jobId);
    expectTestModeEvent(completed);
    expect(completed.body.data).toMatchObject({
      id: jobId,
      status: 'completed',
      total: 4,
      counts: { pending: 0, sent: 3, failed: 1, cancelled: 0 },
      livemode: false,
    });

    // Receipts: the two good numbers delivered, the 0009 one sent and then undelivered.
    const getJob = async () => {
      const res = await api.GET('/api/v2/messages/bulk/{jobId}', { params: { path: { jobId } } });
      return res.data?.job ?? fail(`GET /api/v2/messages/bulk/${jobId}`, res.error);
    };
    const job = await poll(
      'the receipts of the job',
      getJob,
      (j) => j.delivery.delivered === 2 && j.delivery.undelivered === 1,
      {
        timeoutMs: s.waitMs,
      },
    );
    expect(job.delivery).toEqual({ delivered: 2, read: 0, undelivered: 1 });

    const failedRows = async () => {
      const res = await api.GET('/api/v2/messages/bulk/{jobId}/rows', {
        params: { path: { jobId }, query: { status: 'failed' } },
      });
      return res.data?.data.rows ?? fail(`GET /api/v2/messages/bulk/${jobId}/rows`, res.error);
    };
    const [failed, ...others] = await failedRows();
    expect(others).toEqual([]);
    expect(failed).toMatchObject({ index: 2, to: rejected, status: 'failed', errorCode: 'PROVIDER_REJECTED' });

    // Retry: the failed row goes back to pending and the job to queued...
    const retry = await api.POST('/api/v2/messages/bulk/{jobId}/retry-failed', { params: { path: { jobId } } });
    if (!retry.data) return fail(`POST /api/v2/messages/bulk/${jobId}/retry-failed`, retry.error);
    expect(retry.data).toMatchObject({
      retried: 1,
      job: { id: jobId, status: 'queued', counts: { pending: 1, sent: 3, failed: 0, cancelled: 0 } },
    });

    // ...and the job completes again. The sandbox rejects a 0000 number every time, so the row is
    // failed again, now with a new message (a retry is a new message in the log).
    const again = await waitForEvent(
      'bulk_job.completed',
      (j, e) => j.id === jobId && e.webhookId !== completed.webhookId,
    );
    expectTestModeEvent(again);
    expect(again.body.data).toMatchObject({
      id: jobId,
      status: 'completed',
      counts: { pending: 0, sent: 3, failed: 1, cancelled: 0 },
    });
    const [retried, ...more] = await failedRows();
    expect(more).toEqual([]);
    expect(retried).toMatchObject({ index: 2, to: rejected, status: 'failed', errorCode: 'PROVIDER_REJECTED' });
    expect(retried.messageId).toBeTruthy();
    expect(retried.messageId).not.toBe(failed.messageId);
    expect(receiver.refused).toEqual([]);
  });

  it("a customer's reply to the account's sender arrives as sms.received and is listed by GET /api/v2/sms/inbound", async () => {
    const sender = await approvedDefaultSender();
    const customer = deliverable();
    const asked = await api.POST('/api/v2/messages/send', {
      body: {
        to: customer,
        channel: 'local_sms',
        messageType: 'free_text',
        sender: sender.name,
        content: { text: 'Your table for two is booked for 8 pm. Reply to change it.' },
      },
    });
    if (!asked.data) return fail('POST /api/v2/messages/send', asked.error);

    // The customer answers: the control route plays the SMS the operator's network would hand over.
    const text = `Make it 9 pm please (${randomUUID().slice(0, 8)})`;
    const replied = await api.POST('/api/v2/test/inbound/sms', { body: { from: customer, text } });
    if (!replied.data) return fail('POST /api/v2/test/inbound/sms', replied.error);

    const event = await waitForEvent('sms.received', (sms) => sms.from === customer && sms.text === text);
    expectTestModeEvent(event);
    expect(event.body.data).toMatchObject({ from: customer, to: sender.name, text, senderId: sender.id });

    const listed = await poll(
      'the reply in GET /api/v2/sms/inbound',
      async () => {
        const res = await api.GET('/api/v2/sms/inbound', { params: { query: { from: customer } } });
        return res.data?.data.inboundSms ?? fail('GET /api/v2/sms/inbound', res.error);
      },
      (items) => items.some((i) => i.text === text),
      { timeoutMs: s.waitMs },
    );
    expect(listed.find((i) => i.text === text)).toMatchObject({
      id: event.body.data.id,
      from: customer,
      to: sender.name,
      senderId: sender.id,
    });
    expect(receiver.refused).toEqual([]);
  });

  /**
   * The test mode's default SMS sender, approved: the one it has, or a new one approved through the
   * test-mode control (in live mode the operator reviews senders).
   */
  async function approvedDefaultSender(): Promise<{ id: string; name: string }> {
    const list = await api.GET('/api/v2/sms-senders');
    if (!list.data) return fail('GET /api/v2/sms-senders', list.error);
    const current = list.data.data.smsSenders.find((x) => x.isDefault && x.status === 'approved');
    if (current) return current;
    const created = await api.POST('/api/v2/sms-senders', { body: { name: `JestE2E${randomInt(1000, 10_000)}` } });
    if (!created.data) return fail('POST /api/v2/sms-senders', created.error);
    const { id } = created.data.data.smsSender;
    const approved = await api.POST('/api/v2/test/sms-senders/{id}/approve', { params: { path: { id } } });
    if (!approved.data) return fail(`POST /api/v2/test/sms-senders/${id}/approve`, approved.error);
    const chosen = await api.POST('/api/v2/sms-senders/{id}/default', { params: { path: { id } } });
    if (!chosen.data) return fail(`POST /api/v2/sms-senders/${id}/default`, chosen.error);
    return chosen.data.data.smsSender;
  }
});
