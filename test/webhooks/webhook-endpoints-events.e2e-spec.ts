import { Webhook } from 'standardwebhooks';
import { TestApp, waitFor } from '../support/app';
import { getJob, post, sms, waitStatus } from '../support/bulk-helpers';
import { chatappBody } from '../support/templates-helpers';
import { WebhookReceiver } from '../support/webhook-receiver';
import { Delivery, endpointHelpers, ENV, headersOf } from '../support/webhook-endpoints-helpers';
import { appWithReceiverPerTest } from '../support/webhooks-helpers';

describe('Event endpoints (e2e): the events sent', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  const { api, endpoint, settled } = endpointHelpers(
    () => t,
    () => receiver,
  );
  appWithReceiverPerTest(ENV, { app: (x) => (t = x), receiver: (x) => (receiver = x) });

  it("the spec's own events also carry webhook-id/-timestamp/-signature keyed with the receiver's secret bytes", async () => {
    const acc = await t.createAccount();
    const put = await t
      .http()
      .put('/api/v2/webhooks/chatapp-web')
      .set('X-API-Key', acc.key)
      .send({ url: receiver.url });
    const key = put.body.data.webhookApiKey as string;
    const queued = await t.http().post('/api/v2/webhooks/chatapp-web/test').set('X-API-Key', acc.key);
    await settled(acc, queued.body.data.deliveryId);
    const [call] = receiver.calls;
    expect(call.headers.authorization).toBe(`Bearer ${key}`);
    expect(call.headers['x-api-key']).toBe(key);
    expect(call.headers['webhook-id']).toBe(queued.body.data.deliveryId);
    expect(new Webhook(key, { format: 'raw' }).verify(call.raw, headersOf(call))).toMatchObject({
      event: 'webhook.test',
    });
  });

  it('bulk_job events: queued and completed for a small job, paused and cancelled, rejected; data is the job object', async () => {
    const acc = await t.createAccount();
    const ep = await endpoint(acc, ['bulk_job.*']);
    const done = (await post(t, acc.key, { name: 'events', messagesPerSecond: 10, messages: [sms(), sms()] })).body
      .id as string;
    const completed = await waitStatus(t, acc.key, done, ['completed']);
    const slow = (await post(t, acc.key, { messagesPerSecond: 1, messages: Array.from({ length: 20 }, () => sms()) }))
      .body.id as string;
    await waitFor(async () => (await getJob(t, acc.key, slow)).status === 'running' || null, {
      what: 'slow job running',
    });
    expect((await t.http().post(`/api/v2/messages/bulk/${slow}/pause`).set('X-API-Key', acc.key)).status).toBe(200);
    const cancelled = await t.http().post(`/api/v2/messages/bulk/${slow}/cancel`).set('X-API-Key', acc.key);
    expect(cancelled.status).toBe(200);
    const bad = (
      await post(t, acc.key, {
        messagesPerSecond: 10,
        messages: [sms(), { to: 'nope', channel: 'local_sms', messageType: 'free_text', content: { text: 'x' } }],
      })
    ).body.id as string;
    await waitStatus(t, acc.key, bad, ['rejected']);

    const expected = [
      `${done}:bulk_job.queued`,
      `${done}:bulk_job.completed`,
      `${slow}:bulk_job.queued`,
      `${slow}:bulk_job.paused`,
      `${slow}:bulk_job.cancelled`,
      `${bad}:bulk_job.rejected`,
    ];
    await waitFor(async () => receiver.calls.length >= expected.length || null, { what: '6 bulk_job events' });
    const bodies = receiver.calls.map((c) => {
      expect(new Webhook(ep.secret).verify(c.raw, headersOf(c))).toBeTruthy();
      return JSON.parse(c.raw) as { type: string; timestamp: string; data: { id: string; status: string } };
    });
    expect(bodies.map((b) => `${b.data.id}:${b.type}`).sort()).toEqual(expected.sort());
    expect(bodies.find((b) => b.type === 'bulk_job.completed')?.data).toEqual(completed);
    for (const b of bodies) expect(b.data.status).toBe(b.type.slice('bulk_job.'.length));
  });

  it('sms_sender.* and template.* events carry the sender / template as the API shows them', async () => {
    const acc = await t.createAccount();
    const ep = await endpoint(acc, ['sms_sender.*', 'template.approved', 'template.rejected']);
    const sender = await t.http().post('/api/v2/sms-senders').set('X-API-Key', acc.key).send({ name: 'Shop1' });
    expect(sender.status).toBe(201);
    const approved = await t.admin('post', `/admin/v1/sms-senders/${sender.body.data.smsSender.id}/approve`).send({});
    expect(approved.status).toBe(200);
    const tpl = await t
      .http()
      .post('/api/v2/templates')
      .set('X-API-Key', acc.key)
      .send(chatappBody({ name: 'order_events' }));
    expect(tpl.status).toBe(201);
    const id = tpl.body.data.template.id as string;
    expect((await t.admin('post', `/admin/v1/templates/${id}/status`).send({ status: 'approved' })).status).toBe(200);
    // The same status again is not a change: no second event.
    expect((await t.admin('post', `/admin/v1/templates/${id}/status`).send({ status: 'approved' })).status).toBe(200);
    expect(
      (await t.admin('post', `/admin/v1/templates/${id}/status`).send({ status: 'rejected', reason: 'INVALID_FORMAT' }))
        .status,
    ).toBe(200);
    await waitFor(async () => receiver.calls.length >= 3 || null, { what: '3 events' });
    const bodies = receiver.calls.map((c) => {
      expect(new Webhook(ep.secret).verify(c.raw, headersOf(c))).toBeTruthy();
      return JSON.parse(c.raw) as { type: string; data: Record<string, unknown> };
    });
    expect(bodies.map((b) => b.type).sort()).toEqual(
      ['sms_sender.approved', 'template.approved', 'template.rejected'].sort(),
    );
    const { accountId: _a, ...senderView } = approved.body.data.smsSender;
    expect(bodies.find((b) => b.type === 'sms_sender.approved')?.data).toEqual(senderView);
    const own = (await t.http().get(`/api/v2/templates/${id}`).set('X-API-Key', acc.key)).body.data;
    expect(bodies.find((b) => b.type === 'template.rejected')?.data).toEqual(own);
    expect(bodies.find((b) => b.type === 'template.approved')?.data).toMatchObject({ id, status: 'approved' });
    expect(receiver.calls).toHaveLength(3);
  });

  it('chatapp_web.message.received reaches event endpoints too (Standard Webhooks body), also without a web-session webhook; a duplicate adds nothing', async () => {
    const acc = await t.createAccount();
    const ep = await endpoint(acc, ['chatapp_web.*']);
    await t
      .admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`)
      .send({ name: 'main', status: 'ready', chats: [] })
      .expect(201);
    const res = await t
      .admin('post', `/admin/v1/accounts/${acc.id}/web-sessions/main/inbound`)
      .send({ from: { jid: '966501234567@c.us', displayName: 'Sara' }, text: 'Hi', remoteMessageId: 'wamid-ep-1' });
    expect(res.status).toBe(202);
    expect(res.body.data.status).toBe('skipped');
    const [call] = await waitFor(async () => (receiver.calls.length ? receiver.calls : null), {
      what: 'the inbound event',
    });
    const body = new Webhook(ep.secret).verify(call.raw, headersOf(call)) as {
      type: string;
      data: Record<string, unknown>;
    };
    expect(body).toMatchObject({
      type: 'chatapp_web.message.received',
      data: { accountId: 'main', remoteMessageId: 'wamid-ep-1', text: 'Hi', from: { phone: '+966501234567' } },
    });
    // A repeated remote message id is dropped: no second event.
    const again = await t
      .admin('post', `/admin/v1/accounts/${acc.id}/web-sessions/main/inbound`)
      .send({ from: { jid: '966501234567@c.us', displayName: 'Sara' }, text: 'Hi', remoteMessageId: 'wamid-ep-1' });
    expect(again.status).toBe(202);
    expect(again.body.data.dropped).toBe('duplicate');
    expect(
      (await api(acc.key).deliveries(`?event=chatapp_web.message.received`)).body.data.deliveries as Delivery[],
    ).toHaveLength(1);
  });
});
