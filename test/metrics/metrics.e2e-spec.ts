import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { ShutdownCoordinator } from '../../src/common/shutdown/shutdown-coordinator';
import { ScheduledSender } from '../../src/messaging/scheduled/scheduled-sender';
import { MetricsService } from '../../src/metrics/metrics.service';
import { RECEIPT_INTAKE, ReceiptIntake } from '../../src/providers/provider-events';
import { WebhookDeliveryWorker } from '../../src/webhooks/webhook-delivery.worker';
import { BULK_TEST_ENV, phone, post, sms, waitStatus } from '../support/bulk-helpers';
import { createTestApp, REQUEST_ID_RE, TestApp, waitFor } from '../support/app';
import { Scrape } from '../support/prometheus';
import { startReceiver, WebhookReceiver } from '../support/webhook-receiver';

const TOKEN = 'metrics-token-0123456789abcdef';
const SENT = { channel: 'local_sms', provider: 'sandbox', status: 'sent' };
/** Every metric the operations guide and the dashboard name. */
const OURS = [
  'http_request_duration_seconds',
  'messages_total',
  'provider_request_duration_seconds',
  'bulk_jobs',
  'bulk_rows_pending',
  'bulk_dispatch_messages_total',
  'webhook_deliveries_total',
  'webhook_delivery_duration_seconds',
  'webhook_outbox_pending',
  'lease_takeovers_total',
  'receipts_total',
];

describe('GET /metrics (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    // The webhook worker only runs when a test ticks it, a failed attempt is not retried within a
    // test (one attempt counted, whatever the machine's speed), and the gauges are refreshed only
    // when a test asks.
    t = await createTestApp({
      env: {
        ...BULK_TEST_ENV,
        METRICS_TOKEN: TOKEN,
        WEBHOOK_DELIVERY_INTERVAL_MS: '60000',
        WEBHOOK_RETRY_BASE_MS: '60000',
        METRICS_REFRESH_MS: '3600000',
      },
    });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const scrape = async (): Promise<Scrape> => {
    const res = await t.http().get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8; version=0.0.4');
    return new Scrape(res.text);
  };
  const refreshed = async (): Promise<Scrape> => {
    await t.app.get(MetricsService).refreshGauges();
    return scrape();
  };
  const db = () => t.app.get(DataSource);
  const send = (key: string, body: Record<string, unknown>) =>
    t.http().post('/api/v2/messages/send').set('X-API-Key', key).send(body);

  it('parses as Prometheus text: process defaults and every metric of the service, typed', async () => {
    const s = await scrape();
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_p99_seconds',
    ]) {
      expect(s.families.has(name)).toBe(true);
    }
    const types = Object.fromEntries(OURS.map((n) => [n, s.family(n).type]));
    expect(types).toEqual({
      http_request_duration_seconds: 'HISTOGRAM',
      messages_total: 'COUNTER',
      provider_request_duration_seconds: 'HISTOGRAM',
      bulk_jobs: 'GAUGE',
      bulk_rows_pending: 'GAUGE',
      bulk_dispatch_messages_total: 'COUNTER',
      webhook_deliveries_total: 'COUNTER',
      webhook_delivery_duration_seconds: 'HISTOGRAM',
      webhook_outbox_pending: 'GAUGE',
      lease_takeovers_total: 'COUNTER',
      receipts_total: 'COUNTER',
    });
  });

  it('counters add up: N messages sent -> exactly N more messages_total{sent}; failed and scheduled counted once; provider calls timed', async () => {
    const acc = await t.createAccount();
    const before = await scrape();
    // 3 single sends + one batch of 2 recipients = 5 sent; one sandbox rejection; one scheduled.
    for (let i = 0; i < 3; i++) expect((await send(acc.key, sms(phone()))).status).toBe(201);
    const batch = await send(acc.key, { ...sms(), to: [phone(), phone()] });
    expect(batch.body.data.messages.map((m: { status: string }) => m.status)).toEqual(['sent', 'sent']);
    const rejected = await send(acc.key, sms('+966500000000'));
    expect(rejected.body.data.messages[0]).toMatchObject({ status: 'failed', errorCode: 'PROVIDER_REJECTED' });
    const later = await send(acc.key, { ...sms(phone()), scheduleAt: new Date(Date.now() + 3_600_000).toISOString() });
    expect(later.body.data.messages[0].status).toBe('scheduled');

    const after = await scrape();
    const delta = (status: string) =>
      after.value('messages_total', { ...SENT, status }) - before.value('messages_total', { ...SENT, status });
    expect({ sent: delta('sent'), failed: delta('failed'), scheduled: delta('scheduled') }).toEqual({
      sent: 5,
      failed: 1,
      scheduled: 1,
    });
    const call = { channel: 'local_sms', provider: 'sandbox' };
    const calls = (outcome: string) =>
      after.count('provider_request_duration_seconds', { ...call, outcome }) -
      before.count('provider_request_duration_seconds', { ...call, outcome });
    expect({ sent: calls('sent'), rejected: calls('rejected') }).toEqual({ sent: 5, rejected: 1 });
    // The log says the same.
    const stored: { status: string; n: number }[] = await db().query(
      'SELECT status, COUNT(*) AS n FROM messages WHERE account_id = ? GROUP BY status ORDER BY status',
      [acc.id],
    );
    expect(stored.map((r) => [r.status, Number(r.n)])).toEqual([
      ['failed', 1],
      ['scheduled', 1],
      ['sent', 5],
    ]);

    // Cancelling it counts once under cancelled; a second (refused) cancel counts nothing.
    const id = later.body.data.messages[0].id as string;
    expect((await t.http().post(`/api/v2/messages/${id}/cancel`).set('X-API-Key', acc.key)).status).toBe(200);
    expect((await t.http().post(`/api/v2/messages/${id}/cancel`).set('X-API-Key', acc.key)).status).toBe(409);
    const last = await scrape();
    expect(
      last.value('messages_total', { ...SENT, status: 'cancelled' }) -
        after.value('messages_total', { ...SENT, status: 'cancelled' }),
    ).toBe(1);
  });

  it('http_request_duration_seconds: route is the matched template, never the raw path; no route -> "unmatched"', async () => {
    const acc = await t.createAccount();
    const id = (await send(acc.key, sms(phone()))).body.data.messages[0].id as string;
    expect((await t.http().get(`/api/v2/messages/${id}`).set('X-API-Key', acc.key)).status).toBe(200);
    expect((await t.http().get('/api/v2/messages/msg_missing').set('X-API-Key', acc.key)).status).toBe(404);
    expect((await t.http().get(`/no/such/route/${id}`)).status).toBe(404);
    expect((await t.http().get(`/api/v2/messages/${id}`)).status).toBe(401);
    const s = await scrape();
    const labels = s.labelSets('http_request_duration_seconds');
    expect(labels).toEqual(
      expect.arrayContaining([
        { method: 'GET', route: '/api/v2/messages/:id', status: '200' },
        { method: 'GET', route: '/api/v2/messages/:id', status: '404' },
        { method: 'GET', route: '/api/v2/messages/:id', status: '401' },
        { method: 'POST', route: '/api/v2/messages/send', status: '201' },
        { method: 'GET', route: 'unmatched', status: '404' },
      ]),
    );
    expect(labels.filter((l) => l.route.includes(id) || l.route.includes('msg_missing'))).toEqual([]);
  });

  it('bulk: dispatched rows counted once; gauges show a paused job after a refresh and clear when it is cancelled', async () => {
    const acc = await t.createAccount({ walletBalance: 10 });
    const before = await scrape();
    const res = await post(t, acc.key, { messagesPerSecond: 10, messages: Array.from({ length: 5 }, () => sms()) });
    expect(res.status).toBe(202);
    const paused = await waitStatus(t, acc.key, res.body.id, ['paused']);
    expect(paused).toMatchObject({ pauseReason: 'insufficient_balance', counts: { pending: 3, sent: 2 } });
    const s = await refreshed();
    expect(s.value('bulk_dispatch_messages_total') - before.value('bulk_dispatch_messages_total')).toBe(2);
    expect(s.value('messages_total', SENT) - before.value('messages_total', SENT)).toBe(2);
    expect(s.value('bulk_jobs', { status: 'paused' })).toBe(1);
    expect(s.value('bulk_rows_pending')).toBe(3);
    expect(
      s
        .labelSets('bulk_jobs')
        .map((l) => l.status)
        .sort(),
    ).toEqual(['accepting', 'queued', 'paused', 'running', 'validating'].sort());

    const cancel = await t.http().post(`/api/v2/messages/bulk/${res.body.id}/cancel`).set('X-API-Key', acc.key);
    expect(cancel.status).toBe(200);
    const stale = await scrape();
    expect(stale.value('bulk_jobs', { status: 'paused' })).toBe(1); // a scrape does not query tables
    const fresh = await refreshed();
    expect([fresh.value('bulk_jobs', { status: 'paused' }), fresh.value('bulk_rows_pending')]).toEqual([0, 0]);
  });

  it('webhooks: outbox gauge, attempts by outcome with durations, and a takeover of an expired lease', async () => {
    const acc = await t.createAccount();
    expect(
      (await t.http().put('/api/v2/webhooks/chatapp-web').set('X-API-Key', acc.key).send({ url: receiver.url })).status,
    ).toBe(200);
    const before = await scrape();
    const queued = await t.http().post('/api/v2/webhooks/chatapp-web/test').set('X-API-Key', acc.key);
    const deliveryId = queued.body.data.deliveryId as string;
    expect((await refreshed()).value('webhook_outbox_pending')).toBe(1);
    // As a replica that died mid-attempt leaves it: leased, the lease expired.
    await db().query('UPDATE webhook_deliveries SET lease_owner = ?, lease_expires_at = ? WHERE id = ?', [
      'gone:1:dead',
      Date.now() - 1000,
      deliveryId,
    ]);
    const worker = t.app.get(WebhookDeliveryWorker);
    await waitFor(
      async () => {
        await worker.tick();
        const [row] = await db().query('SELECT status FROM webhook_deliveries WHERE id = ?', [deliveryId]);
        return row.status === 'delivered';
      },
      { what: 'delivery delivered' },
    );
    const after = await refreshed();
    expect(after.value('webhook_outbox_pending')).toBe(0);
    expect(
      after.value('webhook_deliveries_total', { outcome: 'delivered' }) -
        before.value('webhook_deliveries_total', { outcome: 'delivered' }),
    ).toBe(1);
    expect(after.count('webhook_delivery_duration_seconds') - before.count('webhook_delivery_duration_seconds')).toBe(
      1,
    );
    expect(
      after.value('lease_takeovers_total', { loop: 'webhook_delivery' }) -
        before.value('lease_takeovers_total', { loop: 'webhook_delivery' }),
    ).toBe(1);
    expect(receiver.calls.filter((c) => c.headers['x-service-delivery-id'] === deliveryId)).toHaveLength(1);

    // A receiver error: the attempt is counted `retrying` and the delivery waits in the outbox.
    receiver.respond(() => 500);
    const failing = (await t.http().post('/api/v2/webhooks/chatapp-web/test').set('X-API-Key', acc.key)).body.data
      .deliveryId as string;
    await waitFor(
      async () => {
        await worker.tick();
        const [row] = await db().query('SELECT attempt_count, last_http_status FROM webhook_deliveries WHERE id = ?', [
          failing,
        ]);
        return Number(row.last_http_status) === 500 && Number(row.attempt_count) === 1;
      },
      { what: 'first attempt failed' },
    );
    receiver.respond(() => 200);
    const retried = await refreshed();
    expect(
      retried.value('webhook_deliveries_total', { outcome: 'retrying' }) -
        before.value('webhook_deliveries_total', { outcome: 'retrying' }),
    ).toBe(1);
    expect(retried.value('webhook_outbox_pending')).toBe(1);
    // A delivery nobody held is no takeover.
    expect(
      retried.value('lease_takeovers_total', { loop: 'webhook_delivery' }) -
        before.value('lease_takeovers_total', { loop: 'webhook_delivery' }),
    ).toBe(1);
  });

  it('scheduled sends: a message whose sender died mid-send is taken over once, then counted sent', async () => {
    const acc = await t.createAccount();
    const later = await send(acc.key, { ...sms(phone()), scheduleAt: new Date(Date.now() + 3_600_000).toISOString() });
    const id = later.body.data.messages[0].id as string;
    const before = await scrape();
    await db().query('UPDATE messages SET scheduled_at = ?, lease_owner = ?, lease_expires_at = ? WHERE id = ?', [
      Date.now() - 2000,
      'rep_gone',
      Date.now() - 1000,
      id,
    ]);
    await waitFor(
      async () => {
        await t.app.get(ScheduledSender).tick();
        const [row] = await db().query('SELECT status FROM messages WHERE id = ?', [id]);
        return row.status === 'sent';
      },
      { what: 'scheduled message sent' },
    );
    const after = await scrape();
    expect(
      after.value('lease_takeovers_total', { loop: 'scheduled_send' }) -
        before.value('lease_takeovers_total', { loop: 'scheduled_send' }),
    ).toBe(1);
    expect(after.value('messages_total', SENT) - before.value('messages_total', SENT)).toBe(1);
  });

  it('a dry run and a CSV export count no message and no provider call; their requests are timed under their route templates', async () => {
    const acc = await t.createAccount();
    const job = await post(t, acc.key, { messagesPerSecond: 10, messages: [sms(), sms()] });
    expect(job.status).toBe(202);
    await waitStatus(t, acc.key, job.body.id, ['completed']);
    const before = await scrape();
    const dry = await t
      .http()
      .post('/api/v2/messages/bulk/validate')
      .set('X-API-Key', acc.key)
      .send({ messagesPerSecond: 10, messages: [sms(), sms(), sms('12')] });
    expect(dry.body.data).toMatchObject({ total: 3, valid: 2, invalid: 1 });
    const csv = await t.http().get(`/api/v2/messages/bulk/${job.body.id}/rows.csv`).set('X-API-Key', acc.key);
    expect(csv.status).toBe(200);
    const after = await scrape();
    expect(after.value('messages_total') - before.value('messages_total')).toBe(0);
    expect(after.count('provider_request_duration_seconds') - before.count('provider_request_duration_seconds')).toBe(
      0,
    );
    expect(after.value('bulk_dispatch_messages_total') - before.value('bulk_dispatch_messages_total')).toBe(0);
    const timed = (route: string, method: string) =>
      after.count('http_request_duration_seconds', { method, route, status: '200' }) -
      before.count('http_request_duration_seconds', { method, route, status: '200' });
    expect([
      timed('/api/v2/messages/bulk/validate', 'POST'),
      timed('/api/v2/messages/bulk/:jobId/rows.csv', 'GET'),
    ]).toEqual([1, 1]);
  });

  it('METRICS_TOKEN set: 401 UNAUTHORIZED envelope without it or with another token', async () => {
    for (const auth of [null, 'Bearer wrong-token-0123456789abc', `Basic ${TOKEN}`, TOKEN]) {
      const req = t.http().get('/metrics');
      if (auth) req.set('Authorization', auth);
      const res = await req;
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        success: false,
        code: 'UNAUTHORIZED',
        error: expect.any(String),
        requestId: expect.stringMatching(REQUEST_ID_RE),
      });
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    }
  });

  it('docs/grafana-dashboard.json uses only metric names a live scrape has', async () => {
    const dashboard = JSON.parse(
      readFileSync(join(__dirname, '..', '..', 'docs', 'grafana-dashboard.json'), 'utf8'),
    ) as {
      panels: { targets?: { expr: string }[] }[];
    };
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((x) => x.expr));
    const names = new Set(exprs.flatMap(metricNames));
    expect(names.size).toBeGreaterThanOrEqual(OURS.length);
    // A receipt for a provider id no message has (kept, counted as unmatched), so receipts_total has a series.
    await t.app.get<ReceiptIntake>(RECEIPT_INTAKE).accept([
      {
        providerMessageId: 'metrics-unknown',
        status: 'delivered',
        providerStatus: 'DELIVRD',
        errorCode: null,
        providerErrorCode: null,
        at: Date.now(),
      },
    ]);
    const s = await scrape();
    expect([...names].filter((n) => !s.hasSeries(n))).toEqual([]);
    // And each of the service's metrics has a panel.
    expect(OURS.filter((m) => ![...names].some((n) => n === m || n.startsWith(`${m}_`)))).toEqual([]);
    // The error share leaves out the health routes: their 503s mean "no traffic for me" (shutting
    // down, a dependency down), which the probes ask every few seconds, not failed requests.
    const errorShares = exprs.filter((e) => e.includes('status=~"5..'));
    expect(errorShares).toHaveLength(1);
    for (const e of errorShares) {
      const selectors = e.match(/http_request_duration_seconds_count(\{[^}]*\})?/g) ?? [];
      expect(selectors).toHaveLength(2);
      for (const sel of selectors) expect(sel).toContain('route!~"/health/.*"');
    }
  });
});

describe('GET /metrics without a token, and disabled (e2e)', () => {
  it('while shutting down: /metrics still answers, and the readiness 503s are observed under /health/ready', async () => {
    const t = await createTestApp({ env: { SCHEDULERS_ENABLED: 'false' } });
    try {
      t.app.get(ShutdownCoordinator).begin('test');
      expect((await t.http().get('/health/ready')).status).toBe(503);
      const res = await t.http().get('/metrics');
      expect(res.status).toBe(200);
      expect(new Scrape(res.text).labelSets('http_request_duration_seconds')).toContainEqual({
        method: 'GET',
        route: '/health/ready',
        status: '503',
      });
    } finally {
      await t.close();
    }
  });

  it('no METRICS_TOKEN: open; METRICS_ENABLED=false: the 404 of an unknown route, token or not', async () => {
    const open = await createTestApp();
    try {
      const res = await open.http().get('/metrics');
      expect(res.status).toBe(200);
      expect(new Scrape(res.text).families.has('messages_total')).toBe(true);
    } finally {
      await open.close();
    }
    const off = await createTestApp({ env: { METRICS_ENABLED: 'false', METRICS_TOKEN: TOKEN } });
    try {
      const res = await off.http().get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
      const unknown = await off.http().get('/no-such-route');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ ...unknown.body, requestId: expect.stringMatching(REQUEST_ID_RE) });
      expect(res.body.code).toBe('NOT_FOUND');
    } finally {
      await off.close();
    }
  });
});

/** PromQL words that are not metric names: functions, aggregations, modifiers and label names. */
const PROMQL_WORDS = new Set([
  'sum',
  'max',
  'min',
  'avg',
  'count',
  'rate',
  'increase',
  'irate',
  'histogram_quantile',
  'by',
  'without',
  'on',
  'ignoring',
  'and',
  'or',
  'unless',
  'le',
]);

/** The metric names an expression selects (label matchers, grouping labels, strings and durations removed). */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without)\s*\([^)]*\)/g, ' ')
    .replace(/"[^"]*"/g, ' ');
  return (bare.match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? []).filter((w) => !PROMQL_WORDS.has(w));
}
