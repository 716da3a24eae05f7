import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import { MetricsService } from '../../src/metrics/metrics.service';
import { getJob, phone, post, sms, waitStatus } from '../support/bulk-helpers';
import { createTestApp, TestAccount, TestApp, waitFor } from '../support/app';
import { Scrape } from '../support/prometheus';
import { smsBody } from '../support/templates-helpers';
import { createTestKey } from '../support/test-mode-helpers';
import { ENV, headersOf } from '../support/webhook-endpoints-helpers';
import { ReceivedCall, startReceiver, WebhookReceiver } from '../support/webhook-receiver';

type Body = { type?: string; event?: string; livemode: boolean; data: { id?: string } };

describe('Test mode: livemode on resources, events and metrics (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;
  let testKey: string;
  let liveRx: WebhookReceiver;
  let testRx: WebhookReceiver;

  beforeAll(async () => {
    [liveRx, testRx] = await Promise.all([startReceiver(), startReceiver()]);
    t = await createTestApp({ env: ENV });
    acc = await t.createAccount();
    testKey = (await createTestKey(t, acc.key)).key;
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([liveRx?.close(), testRx?.close()]);
  });

  const api = (key: string) => ({
    get: (path: string) => t.http().get(path).set('X-API-Key', key),
    post: (path: string, body: object = {}) => t.http().post(path).set('X-API-Key', key).send(body),
    put: (path: string, body: object) => t.http().put(path).set('X-API-Key', key).send(body),
  });
  const scrape = async () => new Scrape(await t.app.get(MetricsService).scrape());
  const modeOf = (key: string) => (key === acc.key ? 'live' : 'test');
  const both = () => [acc.key, testKey];

  it('a message shows livemode false when sent with a test key, true with the live key: send answer, GET, list', async () => {
    for (const key of both()) {
      const livemode = key === acc.key;
      const sent = await api(key).post('/api/v2/messages/send', sms());
      expect(sent.status).toBe(201);
      const [m] = sent.body.data.messages as { id: string; livemode: boolean }[];
      expect({ mode: modeOf(key), livemode: m.livemode }).toEqual({ mode: modeOf(key), livemode });
      expect((await api(key).get(`/api/v2/messages/${m.id}`)).body.data).toMatchObject({ id: m.id, livemode });
      const list = (await api(key).get('/api/v2/messages?limit=5')).body.data.messages as { livemode: boolean }[];
      expect(list.length).toBeGreaterThan(0);
      expect(list.every((x) => x.livemode === livemode)).toBe(true);
    }
  });

  it('templates, SMS sender names, webhook endpoints and verifications carry the mode of the key that made them', async () => {
    for (const key of both()) {
      const livemode = key === acc.key;
      const tpl = await api(key).post('/api/v2/templates', smsBody({ name: `lm_${modeOf(key)}` }));
      expect([tpl.status, tpl.body.data.template.livemode]).toEqual([201, livemode]);
      const read = await api(key).get(`/api/v2/templates/${tpl.body.data.template.id as string}`);
      expect(read.body.data.livemode).toBe(livemode);

      const sender = await api(key).post('/api/v2/sms-senders', { name: `Shop${modeOf(key)}` });
      expect([sender.status, sender.body.data.smsSender.livemode]).toEqual([201, livemode]);
      const senders = (await api(key).get('/api/v2/sms-senders')).body.data.smsSenders as { livemode: boolean }[];
      expect(senders.map((s) => s.livemode)).toEqual([livemode]);

      const ep = await api(key).post('/api/v2/webhooks/endpoints', { url: liveRx.url, events: ['webhook.test'] });
      expect([ep.status, ep.body.data.endpoint.livemode]).toEqual([201, livemode]);
      const endpoints = (await api(key).get('/api/v2/webhooks/endpoints')).body.data.endpoints as {
        livemode: boolean;
      }[];
      expect(endpoints.map((e) => e.livemode)).toEqual([livemode]);

      const to = phone();
      const ver = await api(key).post('/api/v2/verification/send', { to, channel: 'local_sms' });
      expect([ver.status, ver.body.data.livemode]).toEqual([201, livemode]);
      const owner = livemode ? acc.id : `test_${acc.id}`;
      const sandbox = await t.admin('get', '/admin/v1/sandbox/messages').query({ accountId: owner, to });
      const code = /verification code is (\d+)\./.exec(sandbox.body.data.messages[0].text as string)?.[1];
      const checked = await api(key).post('/api/v2/verification/check', {
        verificationId: ver.body.data.verificationId,
        code,
      });
      expect(checked.body.data).toEqual({
        verificationId: ver.body.data.verificationId,
        status: 'approved',
        valid: true,
        livemode,
      });
    }
    // Each mode lists only its own endpoints: one each, above.
    const live = (await api(acc.key).get('/api/v2/webhooks/endpoints')).body.data.endpoints as { id: string }[];
    const test = (await api(testKey).get('/api/v2/webhooks/endpoints')).body.data.endpoints as { id: string }[];
    expect(live.filter((e) => test.some((x) => x.id === e.id))).toEqual([]);
  });

  it('a bulk job of a test key and its rows show livemode false; a live one true', async () => {
    for (const key of both()) {
      const livemode = key === acc.key;
      const res = await post(t, key, { messagesPerSecond: 10, messages: [sms(), sms()] });
      expect([res.status, res.body.livemode]).toEqual([202, livemode]);
      const id = res.body.id as string;
      const done = await waitStatus(t, key, id, ['completed']);
      expect(done).toMatchObject({ livemode, counts: { sent: 2 } });
      expect((await getJob(t, key, id)).livemode).toBe(livemode);
      const rows = (await api(key).get(`/api/v2/messages/bulk/${id}/rows`)).body.data.rows as { livemode: boolean }[];
      expect(rows.map((r) => r.livemode)).toEqual([livemode, livemode]);
    }
  });

  it('an event of test mode goes to the test endpoint only: body livemode false, webhook-mode test, signed; live events say live', async () => {
    const other = await t.createAccount();
    const otherTest = (await createTestKey(t, other.key)).key;
    const make = async (key: string, rx: WebhookReceiver) => {
      const res = await api(key).post('/api/v2/webhooks/endpoints', { url: rx.url, events: ['message.sent'] });
      expect(res.status).toBe(201);
      return res.body.data.endpoint as { id: string; secret: string };
    };
    const liveEp = await make(other.key, liveRx);
    const testEp = await make(otherTest, testRx);
    const before = await scrape();

    const testSend = await api(otherTest).post('/api/v2/messages/send', sms());
    const testId = testSend.body.data.messages[0].id as string;
    const liveSend = await api(other.key).post('/api/v2/messages/send', sms());
    const liveId = liveSend.body.data.messages[0].id as string;

    const callFor = (rx: WebhookReceiver, id: string) =>
      waitFor(async () => rx.calls.find((c) => (c.body as Body | null)?.data?.id === id) ?? null, {
        what: `the message.sent event of ${id}`,
      });
    const testCall: ReceivedCall = await callFor(testRx, testId);
    expect(testCall.headers['webhook-mode']).toBe('test');
    const verified = new Webhook(testEp.secret).verify(testCall.raw, headersOf(testCall)) as Body;
    expect(verified).toMatchObject({ type: 'message.sent', livemode: false, data: { id: testId, livemode: false } });
    expect(Object.keys(verified)).toEqual(['type', 'timestamp', 'livemode', 'data']);

    const liveCall = await callFor(liveRx, liveId);
    expect(liveCall.headers['webhook-mode']).toBe('live');
    expect(new Webhook(liveEp.secret).verify(liveCall.raw, headersOf(liveCall))).toMatchObject({
      type: 'message.sent',
      livemode: true,
      data: { id: liveId, livemode: true },
    });

    // The outbox rows are written with the send: the test message's event went to the test endpoint only.
    const rows: { endpoint_id: string }[] = await t.app
      .get(DataSource)
      .query('SELECT endpoint_id FROM webhook_deliveries WHERE body LIKE ?', [`%${testId}%`]);
    expect(rows.map((r) => r.endpoint_id)).toEqual([testEp.id]);
    expect(liveRx.calls.some((c) => c.raw.includes(testId))).toBe(false);
    expect(testRx.calls.some((c) => c.raw.includes(liveId))).toBe(false);
    // The delivery logs are per mode too.
    const testLog = (await api(otherTest).get('/api/v2/webhooks/deliveries')).body.data.deliveries as {
      endpointId: string;
      livemode: boolean;
    }[];
    expect(testLog.map((d) => [d.endpointId, d.livemode])).toEqual([[testEp.id, false]]);

    // Metrics: the test send counts under mode="test" only; live figures moved by the live send alone.
    await waitFor(
      async () =>
        (await scrape()).value('webhook_deliveries_total', { mode: 'test', outcome: 'delivered' }) > 0 || null,
      { what: 'a test-mode webhook attempt counted' },
    );
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) =>
      after.value(name, labels) - before.value(name, labels);
    expect(delta('messages_total', { status: 'sent', mode: 'test' })).toBe(1);
    expect(delta('messages_total', { status: 'sent', mode: 'live' })).toBe(1);
    const calls = (labels: Record<string, string>) =>
      after.count('provider_request_duration_seconds', labels) -
      before.count('provider_request_duration_seconds', labels);
    expect([calls({ mode: 'test' }), calls({ mode: 'live' })]).toEqual([1, 1]);
    expect(after.labelSets('messages_total')).toContainEqual(expect.objectContaining({ mode: 'test', status: 'sent' }));
  });

  it("the web-session webhook of test mode (the spec's own receiver) gets livemode false and webhook-mode test", async () => {
    const put = await api(testKey).put('/api/v2/webhooks/chatapp-web', { url: testRx.url });
    expect(put.status).toBe(200);
    const key = put.body.data.webhookApiKey as string;
    const queued = await api(testKey).post('/api/v2/webhooks/chatapp-web/test');
    expect(queued.status).toBe(202);
    const call = await waitFor(
      async () => testRx.calls.find((c) => c.headers['webhook-id'] === queued.body.data.deliveryId) ?? null,
      { what: 'the web-session test event' },
    );
    expect(call.headers['webhook-mode']).toBe('test');
    expect(new Webhook(key, { format: 'raw' }).verify(call.raw, headersOf(call))).toMatchObject({
      event: 'webhook.test',
      livemode: false,
    });
    // The live account has no web-session webhook: the test one is the twin's alone.
    expect((await api(acc.key).get('/api/v2/webhooks/chatapp-web')).status).toBe(404);
  });
});
