import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import { SecretBox } from '../src/common/secret-box';
import { UnitOfWork } from '../src/database/unit-of-work';
import { DomainEvent, EVENT_SINK, EventSink } from '../src/messaging/events/event-sink';
import { createTestApp, TestAccount, TestApp, waitFor } from './support/app';
import { BULK_TEST_ENV_PATIENT, getJob, post, sms, waitStatus } from './bulk-helpers';
import { chatappBody } from './support/templates-helpers';
import { ReceivedCall, startReceiver, WebhookReceiver } from './support/webhook-receiver';

// Endpoint deliveries: 3 attempts (0, 40 ms, 80 ms); an endpoint is disabled after 2 failed deliveries.
const ENV = {
  ...BULK_TEST_ENV_PATIENT,
  WEBHOOK_DELIVERY_INTERVAL_MS: '20', WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_ENDPOINT_RETRY_SCHEDULE_MS: '0,40,80', WEBHOOK_DISABLE_AFTER_FAILURES: '2',
};

interface Delivery {
  id: string;
  event: string;
  endpointId: string | null;
  webhookId: string;
  status: string;
  attempts: { attempt: number; at: string; httpStatus: number | null; success: boolean }[];
}

const headersOf = (c: ReceivedCall): Record<string, string> => ({
  'webhook-id': String(c.headers['webhook-id']), 'webhook-timestamp': String(c.headers['webhook-timestamp']), 'webhook-signature': String(c.headers['webhook-signature']),
});

describe('Event endpoints (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  const api = (key: string) => ({
    create: (body: unknown) => t.http().post('/api/v2/webhooks/endpoints').set('X-API-Key', key).send(body as object),
    list: () => t.http().get('/api/v2/webhooks/endpoints').set('X-API-Key', key),
    get: (id: string) => t.http().get(`/api/v2/webhooks/endpoints/${id}`).set('X-API-Key', key),
    patch: (id: string, body: unknown) => t.http().patch(`/api/v2/webhooks/endpoints/${id}`).set('X-API-Key', key).send(body as object),
    del: (id: string) => t.http().delete(`/api/v2/webhooks/endpoints/${id}`).set('X-API-Key', key),
    rotate: (id: string) => t.http().post(`/api/v2/webhooks/endpoints/${id}/rotate-secret`).set('X-API-Key', key),
    test: (id: string) => t.http().post(`/api/v2/webhooks/endpoints/${id}/test`).set('X-API-Key', key),
    deliveries: (q = '') => t.http().get(`/api/v2/webhooks/deliveries${q}`).set('X-API-Key', key),
    redeliver: (id: string) => t.http().post(`/api/v2/webhooks/deliveries/${id}/redeliver`).set('X-API-Key', key),
  });

  async function endpoint(acc: TestAccount, events: string[] = ['*'], url = receiver.url): Promise<{ id: string; secret: string }> {
    const res = await api(acc.key).create({ url, events });
    if (res.status !== 201) throw new Error(`create ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data.endpoint as { id: string; secret: string };
  }

  async function settled(acc: TestAccount, deliveryId: string): Promise<Delivery> {
    return waitFor(async () => {
      const res = await api(acc.key).deliveries('?limit=100');
      return (res.body.data.deliveries as Delivery[]).find((d) => d.id === deliveryId && d.status !== 'pending');
    }, { what: `delivery ${deliveryId} settled` });
  }

  const record = (events: DomainEvent[]) => t.app.get(UnitOfWork).transaction((tx) => t.app.get<EventSink>(EVENT_SINK).record(tx, events));

  beforeAll(async () => {
    t = await createTestApp({ env: ENV });
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

  it('CRUD: create shows the secret once (stored sealed), list/get/patch/delete, other accounts see 404', async () => {
    const acc = await t.createAccount();
    const res = await api(acc.key).create({ url: receiver.url, events: ['message.*', 'bulk_job.completed', 'message.*'], description: 'Orders' });
    expect(res.status).toBe(201);
    const ep = res.body.data.endpoint;
    expect(res.body).toEqual({
      success: true,
      data: { endpoint: {
        id: expect.stringMatching(/^wep_/), url: receiver.url, events: ['message.*', 'bulk_job.completed'], description: 'Orders', status: 'enabled',
        disabledReason: null, createdAt: expect.any(String), updatedAt: expect.any(String), secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      } },
    });
    expect(Buffer.from(ep.secret.slice(6), 'base64')).toHaveLength(32);
    const [stored] = await t.app.get(DataSource).query('SELECT sealed_secret FROM webhook_event_endpoints WHERE id = ?', [ep.id]);
    expect(stored.sealed_secret).not.toContain(ep.secret.slice(6));
    expect(t.app.get(SecretBox).open(stored.sealed_secret)).toBe(ep.secret);

    const { secret: _secret, ...view } = ep;
    expect((await api(acc.key).get(ep.id)).body).toEqual({ success: true, data: { endpoint: view } });
    expect((await api(acc.key).list()).body).toEqual({ success: true, data: { endpoints: [view] } });

    const patched = await api(acc.key).patch(ep.id, { events: ['sms.received'], description: 'SMS', status: 'disabled' });
    expect(patched.status).toBe(200);
    expect(patched.body.data.endpoint).toMatchObject({ events: ['sms.received'], description: 'SMS', status: 'disabled', disabledReason: null });
    expect((await api(acc.key).get(ep.id)).body.data.endpoint).toMatchObject({ events: ['sms.received'], status: 'disabled' });

    const other = await t.createAccount();
    for (const r of [await api(other.key).get(ep.id), await api(other.key).patch(ep.id, { status: 'enabled' }), await api(other.key).del(ep.id), await api(other.key).rotate(ep.id), await api(other.key).test(ep.id)]) {
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ success: false, code: 'NOT_FOUND' });
    }
    expect((await api(other.key).list()).body.data.endpoints).toEqual([]);

    expect((await api(acc.key).del(ep.id)).body).toEqual({ success: true, data: { deleted: true } });
    expect((await api(acc.key).get(ep.id)).status).toBe(404);
    expect((await api(acc.key).del(ep.id)).status).toBe(404);
  });

  it('member keys get 403 on every endpoint route and on redeliver; validation errors are 400', async () => {
    const acc = await t.createAccount();
    const ep = await endpoint(acc);
    const member = await t.memberKey(acc.id, ['messages:create', 'messages:read']);
    for (const r of [
      await api(member).create({ url: receiver.url, events: ['*'] }), await api(member).list(), await api(member).get(ep.id), await api(member).patch(ep.id, {}),
      await api(member).del(ep.id), await api(member).rotate(ep.id), await api(member).test(ep.id), await api(member).redeliver('whd_x'),
    ]) {
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ success: false, code: 'FORBIDDEN' });
    }
    for (const body of [
      { url: receiver.url, events: ['message.nope'] }, { url: receiver.url, events: ['nope.*'] }, { url: receiver.url, events: [] }, { url: receiver.url },
      { url: receiver.url, events: 'message.*' }, { url: 'ftp://example.com/x', events: ['*'] }, { url: receiver.url, events: ['*'], extra: 1 },
    ]) {
      const r = await api(acc.key).create(body);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    }
    expect((await api(acc.key).patch(ep.id, { status: 'paused' })).status).toBe(400);
    expect((await api(acc.key).patch(ep.id, { events: ['bulk_job.*', 'x'] })).status).toBe(400);
  });

  it('test event: Standard Webhooks body and headers, verified with standardwebhooks', async () => {
    const acc = await t.createAccount();
    const ep = await endpoint(acc, ['message.sent']);
    const queued = await api(acc.key).test(ep.id);
    expect(queued.status).toBe(202);
    expect(queued.body).toEqual({ success: true, data: { deliveryId: expect.stringMatching(/^whd_/) } });
    const d = await settled(acc, queued.body.data.deliveryId);
    expect(d).toMatchObject({ status: 'delivered', event: 'webhook.test', endpointId: ep.id, webhookId: d.id });
    const [call] = receiver.calls;
    expect(call.headers['content-type']).toBe('application/json');
    expect(call.headers.authorization).toBeUndefined();
    expect(call.headers['webhook-id']).toBe(d.id);
    expect(Math.abs(Number(call.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    expect(String(call.headers['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(ep.secret).verify(call.raw, headersOf(call))).toEqual({ type: 'webhook.test', timestamp: expect.any(String), data: { endpointId: ep.id, message: 'Test event' } });
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(call.raw, headersOf(call))).toThrow();
  });

  it('rotation: two signatures for 24 h (old and new secret both verify), then only the new one', async () => {
    const acc = await t.createAccount();
    const ep = await endpoint(acc);
    const rotated = await api(acc.key).rotate(ep.id);
    expect(rotated.status).toBe(200);
    const secret = rotated.body.data.endpoint.secret as string;
    expect(secret).not.toBe(ep.secret);
    const first = await settled(acc, (await api(acc.key).test(ep.id)).body.data.deliveryId);
    expect(first.status).toBe('delivered');
    const call = receiver.calls[0];
    expect(String(call.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(new Webhook(secret).verify(call.raw, headersOf(call))).toBeTruthy();
    expect(new Webhook(ep.secret).verify(call.raw, headersOf(call))).toBeTruthy();

    // The overlap ends: only the new secret signs.
    await t.app.get(DataSource).query('UPDATE webhook_event_endpoints SET previous_secret_expires_at = ? WHERE id = ?', [Date.now() - 1, ep.id]);
    await settled(acc, (await api(acc.key).test(ep.id)).body.data.deliveryId);
    const later = receiver.calls[1];
    expect(String(later.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(new Webhook(secret).verify(later.raw, headersOf(later))).toBeTruthy();
    expect(() => new Webhook(ep.secret).verify(later.raw, headersOf(later))).toThrow();
  });

  it('fan-out: exact names, prefixes and * match; disabled endpoints and other accounts get nothing', async () => {
    const acc = await t.createAccount();
    const other = await t.createAccount();
    const [all, messages, completed, disabled] = [await endpoint(acc, ['*']), await endpoint(acc, ['message.*']), await endpoint(acc, ['bulk_job.completed']), await endpoint(acc, ['*'])];
    await api(acc.key).patch(disabled.id, { status: 'disabled' });
    const at = Date.parse('2026-01-02T03:04:05.678Z');
    await record([
      { accountId: acc.id, type: 'message.sent', data: { id: 'msg_1', status: 'sent' }, at },
      { accountId: acc.id, type: 'bulk_job.queued', data: { id: 'job_1' }, at },
      { accountId: other.id, type: 'message.sent', data: { id: 'msg_2' }, at },
    ]);
    const list = await waitFor(async () => {
      const ds = (await api(acc.key).deliveries('?limit=100')).body.data.deliveries as Delivery[];
      return ds.length === 3 && ds.every((d) => d.status === 'delivered') && ds;
    }, { what: '3 deliveries' });
    const sent = list.map((d) => `${d.endpointId}:${d.event}`).sort();
    expect(sent).toEqual([`${all.id}:bulk_job.queued`, `${all.id}:message.sent`, `${messages.id}:message.sent`].sort());
    expect(completed.id).toBeDefined();
    const bodies = receiver.calls.map((c) => JSON.parse(c.raw));
    expect(bodies).toContainEqual({ type: 'message.sent', timestamp: '2026-01-02T03:04:05.678Z', data: { id: 'msg_1', status: 'sent' } });
    for (const c of receiver.calls) {
      const secret = c.headers['webhook-id'] === list.find((d) => d.endpointId === messages.id)?.webhookId ? messages.secret : all.secret;
      expect(new Webhook(secret).verify(c.raw, headersOf(c))).toBeTruthy();
    }
    // Filters of the delivery log.
    expect(((await api(acc.key).deliveries(`?endpointId=${messages.id}`)).body.data.deliveries as Delivery[]).map((d) => d.event)).toEqual(['message.sent']);
    expect(((await api(acc.key).deliveries('?event=bulk_job.queued')).body.data.deliveries as Delivery[]).map((d) => d.endpointId)).toEqual([all.id]);
    expect((await api(other.key).deliveries()).body.data.deliveries).toEqual([]);
  });

  it('retry schedule: attempts wait as configured with the same webhook-id; redelivery starts a new series with the same webhook-id', async () => {
    const acc = await t.createAccount();
    const ep = await endpoint(acc);
    receiver.respond((_c, n) => (n < 3 ? 500 : 200));
    const d = await settled(acc, (await api(acc.key).test(ep.id)).body.data.deliveryId);
    expect(d.status).toBe('delivered');
    expect(d.attempts.map((a) => a.httpStatus)).toEqual([500, 500, 200]);
    const at = d.attempts.map((a) => Date.parse(a.at));
    expect(at[1] - at[0]).toBeGreaterThanOrEqual(40);
    expect(at[2] - at[1]).toBeGreaterThanOrEqual(80);
    expect(new Set(receiver.calls.map((c) => c.headers['webhook-id']))).toEqual(new Set([d.id]));
    for (const c of receiver.calls) expect(new Webhook(ep.secret).verify(c.raw, headersOf(c))).toBeTruthy();

    const again = await api(acc.key).redeliver(d.id);
    expect(again.status).toBe(202);
    expect(again.body.data.delivery).toMatchObject({ event: 'webhook.test', endpointId: ep.id, webhookId: d.id, status: 'pending', attemptCount: 0, attempts: [] });
    const redelivered = await settled(acc, again.body.data.delivery.id);
    expect(redelivered).toMatchObject({ status: 'delivered', webhookId: d.id });
    const last = receiver.calls[receiver.calls.length - 1];
    expect(last.headers['webhook-id']).toBe(d.id);
    expect(last.raw).toBe(receiver.calls[0].raw);
    expect(new Webhook(ep.secret).verify(last.raw, headersOf(last))).toBeTruthy();
    expect((await api(acc.key).redeliver('whd_unknown')).status).toBe(404);
    const other = await t.createAccount();
    expect((await api(other.key).redeliver(d.id)).status).toBe(404);
  });

  it('an endpoint whose last deliveries all failed is disabled with a reason, receives nothing more, and can be enabled again', async () => {
    const acc = await t.createAccount();
    const ep = await endpoint(acc);
    receiver.respond(() => 503);
    for (let i = 0; i < 2; i++) {
      const d = await settled(acc, (await api(acc.key).test(ep.id)).body.data.deliveryId);
      expect(d.status).toBe('failed');
      expect(d.attempts).toHaveLength(3);
    }
    const got = (await api(acc.key).get(ep.id)).body.data.endpoint;
    expect(got).toMatchObject({ status: 'disabled', disabledReason: 'Disabled after 2 consecutive failed deliveries' });
    const refused = await api(acc.key).test(ep.id);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'INVALID_STATE' });
    const calls = receiver.calls.length;
    await record([{ accountId: acc.id, type: 'message.sent', data: {}, at: Date.now() }]);
    const enabled = await api(acc.key).patch(ep.id, { status: 'enabled' });
    expect(enabled.body.data.endpoint).toMatchObject({ status: 'enabled', disabledReason: null });
    receiver.respond(() => 200);
    const ok = await settled(acc, (await api(acc.key).test(ep.id)).body.data.deliveryId);
    expect(ok.status).toBe('delivered');
    expect(receiver.calls.length).toBe(calls + 1);
    const [row] = await t.app.get(DataSource).query('SELECT consecutive_failures FROM webhook_event_endpoints WHERE id = ?', [ep.id]);
    expect(Number(row.consecutive_failures)).toBe(0);
  });

  it("the spec's own events also carry webhook-id/-timestamp/-signature keyed with the receiver's secret bytes", async () => {
    const acc = await t.createAccount();
    const put = await t.http().put('/api/v2/webhooks/chatapp-web').set('X-API-Key', acc.key).send({ url: receiver.url });
    const key = put.body.data.webhookApiKey as string;
    const queued = await t.http().post('/api/v2/webhooks/chatapp-web/test').set('X-API-Key', acc.key);
    await settled(acc, queued.body.data.deliveryId);
    const [call] = receiver.calls;
    expect(call.headers.authorization).toBe(`Bearer ${key}`);
    expect(call.headers['x-api-key']).toBe(key);
    expect(call.headers['webhook-id']).toBe(queued.body.data.deliveryId);
    expect(new Webhook(key, { format: 'raw' }).verify(call.raw, headersOf(call))).toMatchObject({ event: 'webhook.test' });
  });

  it('bulk_job events: queued and completed for a small job, paused and cancelled, rejected; data is the job object', async () => {
    const acc = await t.createAccount();
    const ep = await endpoint(acc, ['bulk_job.*']);
    const done = (await post(t, acc.key, { name: 'events', messagesPerSecond: 10, messages: [sms(), sms()] })).body.id as string;
    const completed = await waitStatus(t, acc.key, done, ['completed']);
    const slow = (await post(t, acc.key, { messagesPerSecond: 1, messages: Array.from({ length: 20 }, () => sms()) })).body.id as string;
    await waitFor(async () => (await getJob(t, acc.key, slow)).status === 'running' || null, { what: 'slow job running' });
    expect((await t.http().post(`/api/v2/messages/bulk/${slow}/pause`).set('X-API-Key', acc.key)).status).toBe(200);
    const cancelled = await t.http().post(`/api/v2/messages/bulk/${slow}/cancel`).set('X-API-Key', acc.key);
    expect(cancelled.status).toBe(200);
    const bad = (await post(t, acc.key, { messagesPerSecond: 10, messages: [sms(), { to: 'nope', channel: 'local_sms', messageType: 'free_text', content: { text: 'x' } }] })).body.id as string;
    await waitStatus(t, acc.key, bad, ['rejected']);

    const expected = [`${done}:bulk_job.queued`, `${done}:bulk_job.completed`, `${slow}:bulk_job.queued`, `${slow}:bulk_job.paused`, `${slow}:bulk_job.cancelled`, `${bad}:bulk_job.rejected`];
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
    const tpl = await t.http().post('/api/v2/templates').set('X-API-Key', acc.key).send(chatappBody({ name: 'order_events' }));
    expect(tpl.status).toBe(201);
    const id = tpl.body.data.template.id as string;
    expect((await t.admin('post', `/admin/v1/templates/${id}/status`).send({ status: 'approved' })).status).toBe(200);
    // The same status again is not a change: no second event.
    expect((await t.admin('post', `/admin/v1/templates/${id}/status`).send({ status: 'approved' })).status).toBe(200);
    expect((await t.admin('post', `/admin/v1/templates/${id}/status`).send({ status: 'rejected', reason: 'INVALID_FORMAT' })).status).toBe(200);
    await waitFor(async () => receiver.calls.length >= 3 || null, { what: '3 events' });
    const bodies = receiver.calls.map((c) => {
      expect(new Webhook(ep.secret).verify(c.raw, headersOf(c))).toBeTruthy();
      return JSON.parse(c.raw) as { type: string; data: Record<string, unknown> };
    });
    expect(bodies.map((b) => b.type).sort()).toEqual(['sms_sender.approved', 'template.approved', 'template.rejected'].sort());
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
    await t.admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`).send({ name: 'main', status: 'ready', chats: [] }).expect(201);
    const res = await t.admin('post', `/admin/v1/accounts/${acc.id}/web-sessions/main/inbound`).send({ from: { jid: '966501234567@c.us', displayName: 'Sara' }, text: 'Hi', remoteMessageId: 'wamid-ep-1' });
    expect(res.status).toBe(202);
    expect(res.body.data.status).toBe('skipped');
    const [call] = await waitFor(async () => (receiver.calls.length ? receiver.calls : null), { what: 'the inbound event' });
    const body = new Webhook(ep.secret).verify(call.raw, headersOf(call)) as { type: string; data: Record<string, unknown> };
    expect(body).toMatchObject({ type: 'chatapp_web.message.received', data: { accountId: 'main', remoteMessageId: 'wamid-ep-1', text: 'Hi', from: { phone: '+966501234567' } } });
    // A repeated remote message id is dropped: no second event.
    const again = await t.admin('post', `/admin/v1/accounts/${acc.id}/web-sessions/main/inbound`).send({ from: { jid: '966501234567@c.us', displayName: 'Sara' }, text: 'Hi', remoteMessageId: 'wamid-ep-1' });
    expect(again.status).toBe(202);
    expect(again.body.data.dropped).toBe('duplicate');
    expect(((await api(acc.key).deliveries(`?event=chatapp_web.message.received`)).body.data.deliveries as Delivery[])).toHaveLength(1);
  });
});
