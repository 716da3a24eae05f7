import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BULK_TEST_ENV_PATIENT, phone, post, sms, waitStatus } from '../support/bulk-helpers';
import { createTestApp, TestAccount, TestApp } from '../support/app';
import { smsBody } from '../support/templates-helpers';
import { createTestKey } from '../support/test-mode-helpers';
import { startReceiver, WebhookReceiver } from '../support/webhook-receiver';

// Issue 30: live keys never see test data and test keys never see live data, on every public GET
// route of the committed document (the table below must name each one; a new GET route fails the
// first test until it is added here).

type Mode = 'live' | 'test';
/** What each mode created, by kind. */
type Made = Record<Mode, Record<string, string>>;
type Check = (get: (mode: Mode, path: string) => Promise<Res>, made: Made) => Promise<void>;
interface Res {
  status: number;
  body: Record<string, unknown> & { data?: Record<string, unknown>; code?: string };
  text: string;
}

const other = (m: Mode): Mode => (m === 'live' ? 'test' : 'live');
const MODES: Mode[] = ['live', 'test'];

/** A get-by-id route: each mode reads its own (200) and gets 404 for the other mode's. */
const byId =
  (kind: string, path: (id: string) => string, notFound: string): Check =>
  async (get, made) => {
    for (const mode of MODES) {
      expect([mode, (await get(mode, path(made[mode][kind]))).status]).toEqual([mode, 200]);
      const res = await get(mode, path(made[other(mode)][kind]));
      expect([mode, res.status, res.body.code]).toEqual([mode, 404, notFound]);
    }
  };

/** A list route: each mode sees its own item, never the other mode's (ids found anywhere in the body). */
const listed =
  (kind: string, path: string): Check =>
  async (get, made) => {
    for (const mode of MODES) {
      const res = await get(mode, path);
      expect([mode, res.status]).toEqual([mode, 200]);
      const text = res.text || JSON.stringify(res.body);
      expect([mode, text.includes(made[mode][kind])]).toEqual([mode, true]);
      expect([mode, text.includes(made[other(mode)][kind])]).toEqual([mode, false]);
    }
  };

/** A singleton route: the two modes answer 200 with different contents (one was changed in live mode only). */
const differs =
  (path: string, pick: (data: Record<string, unknown>) => unknown): Check =>
  async (get) => {
    const live = await get('live', path);
    const test = await get('test', path);
    expect([live.status, test.status]).toEqual([200, 200]);
    expect(pick(test.body.data!)).not.toEqual(pick(live.body.data!));
  };

const RANGE = '?from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z';

const ROUTES: Record<string, Check> = {
  'GET /api/v2/account': async (get) => {
    const live = (await get('live', '/api/v2/account')).body.data!;
    const test = (await get('test', '/api/v2/account')).body.data!;
    expect([live.livemode, test.livemode, live.id]).toEqual([true, false, test.id]);
    expect(test.walletBalance).not.toEqual(live.walletBalance);
  },
  'GET /api/v2/api-keys': async (get, made) => {
    const test = (await get('test', '/api/v2/api-keys')).body.data!.apiKeys as { id: string; mode: string }[];
    expect(test.every((k) => k.mode === 'test')).toBe(true);
    expect(test.map((k) => k.id)).not.toContain(made.live.key);
  },
  'GET /api/v2/webhooks/chatapp-web': async (get) => {
    // Set in live mode only: test mode has none of its own.
    expect((await get('live', '/api/v2/webhooks/chatapp-web')).status).toBe(200);
    const test = await get('test', '/api/v2/webhooks/chatapp-web');
    expect([test.status, test.body.code]).toEqual([404, 'NOT_FOUND']);
  },
  'GET /api/v2/webhooks/deliveries': listed('delivery', '/api/v2/webhooks/deliveries?limit=100'),
  'GET /api/v2/webhooks/endpoints': listed('endpoint', '/api/v2/webhooks/endpoints'),
  'GET /api/v2/webhooks/endpoints/{id}': byId('endpoint', (id) => `/api/v2/webhooks/endpoints/${id}`, 'NOT_FOUND'),
  'GET /api/v2/sms-senders': listed('sender', '/api/v2/sms-senders'),
  'GET /api/v2/sms/inbound': async (get) => {
    for (const mode of MODES) expect((await get(mode, '/api/v2/sms/inbound')).status).toBe(200);
  },
  'GET /api/v2/templates': listed('template', '/api/v2/templates?limit=100'),
  'GET /api/v2/templates/{id}': byId('template', (id) => `/api/v2/templates/${id}`, 'NOT_FOUND'),
  'GET /api/v2/chatapp/official-senders': async (get) => {
    for (const mode of MODES) expect((await get(mode, '/api/v2/chatapp/official-senders')).status).toBe(200);
  },
  'GET /api/v2/chatapp-web/chats': async (get) => {
    // No web session in either mode: each mode's own list is empty, never another's.
    for (const mode of MODES) expect((await get(mode, '/api/v2/chatapp-web/chats?accountId=none')).status).toBe(404);
  },
  'GET /api/v2/messages/bulk': listed('job', '/api/v2/messages/bulk?limit=100'),
  'GET /api/v2/messages/bulk/{jobId}': byId('job', (id) => `/api/v2/messages/bulk/${id}`, 'JOB_NOT_FOUND'),
  'GET /api/v2/messages/bulk/{jobId}/events': async (get, made) => {
    for (const mode of MODES) {
      const res = await get(mode, `/api/v2/messages/bulk/${made[other(mode)].job}/events`);
      expect([res.status, res.body.code]).toEqual([404, 'JOB_NOT_FOUND']);
    }
  },
  'GET /api/v2/messages/bulk/{jobId}/rows': byId('job', (id) => `/api/v2/messages/bulk/${id}/rows`, 'JOB_NOT_FOUND'),
  'GET /api/v2/messages/bulk/{jobId}/rows.csv': byId(
    'job',
    (id) => `/api/v2/messages/bulk/${id}/rows.csv`,
    'JOB_NOT_FOUND',
  ),
  'GET /api/v2/messages/export.csv': listed('message', `/api/v2/messages/export.csv${RANGE}`),
  'GET /api/v2/messages': listed('message', '/api/v2/messages?limit=100'),
  'GET /api/v2/messages/{id}': byId('message', (id) => `/api/v2/messages/${id}`, 'NOT_FOUND'),
  'GET /api/v2/account/geo-permissions': async (get) => {
    for (const mode of MODES) expect((await get(mode, '/api/v2/account/geo-permissions')).status).toBe(200);
  },
  'GET /api/v2/verification/fraud-blocks': async (get) => {
    for (const mode of MODES) expect((await get(mode, '/api/v2/verification/fraud-blocks')).status).toBe(200);
  },
  'GET /api/v2/verification/stats': differs('/api/v2/verification/stats', (d) => JSON.stringify(d)),
  'GET /api/v2/privacy/erasures/{id}': byId('erasure', (id) => `/api/v2/privacy/erasures/${id}`, 'NOT_FOUND'),
  'GET /api/v2/audit-events': listed('auditTarget', '/api/v2/audit-events?limit=100'),
  'GET /api/v2/account/usage': async (get) => {
    for (const mode of MODES) expect((await get(mode, '/api/v2/account/usage')).status).toBe(200);
  },
  'GET /api/v2/account/compliance': differs('/api/v2/account/compliance', (d) => JSON.stringify(d)),
  'GET /api/v2/suppressions': listed('suppression', '/api/v2/suppressions?limit=100'),
  'GET /api/v2/suppressions/export': listed('suppression', '/api/v2/suppressions/export'),
  'GET /api/v2/account/keywords': differs('/api/v2/account/keywords', (d) => JSON.stringify(d.extraKeywords)),
};

describe('Test mode isolation on every public GET route (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;
  let receiver: WebhookReceiver;
  const keys = {} as Record<Mode, string>;
  const made: Made = { live: {}, test: {} };

  const get = async (mode: Mode, path: string): Promise<Res> => {
    const res = await t.http().get(path).set('X-API-Key', keys[mode]).buffer(true);
    return { status: res.status, body: res.body as Res['body'], text: res.text ?? '' };
  };
  const call = async (mode: Mode, method: 'post' | 'put' | 'patch', path: string, body: object, status: number[]) => {
    const res = await t.http()[method](path).set('X-API-Key', keys[mode]).send(body);
    if (!status.includes(res.status))
      throw new Error(`${mode} ${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await createTestApp({ env: { ...BULK_TEST_ENV_PATIENT, WEBHOOK_DELIVERY_INTERVAL_MS: '25' } });
    acc = await t.createAccount();
    keys.live = acc.key;
    keys.test = (await createTestKey(t, acc.key)).key;
    made.live.key = acc.keyId;
    for (const mode of MODES) {
      const m = made[mode];
      const endpoint = await call(
        mode,
        'post',
        '/api/v2/webhooks/endpoints',
        { url: `${receiver.url}/${mode}`, events: ['*'] },
        [201],
      );
      m.endpoint = endpoint.endpoint.id;
      const sent = await call(mode, 'post', '/api/v2/messages/send', sms(phone(), `${mode} text`), [201]);
      m.message = sent.messages[0].id;
      const job = await post(t, keys[mode], { messages: [sms(phone())], messagesPerSecond: 10 });
      m.job = job.body.id;
      await waitStatus(t, keys[mode], m.job, ['completed']);
      m.template = (await call(mode, 'post', '/api/v2/templates', smsBody({ name: `iso_${mode}` }), [201])).template.id;
      m.sender = (await call(mode, 'post', '/api/v2/sms-senders', { name: `Iso${mode}` }, [201])).smsSender.id;
      m.suppression = mode === 'live' ? '+966501110001' : '+966501110002';
      await call(mode, 'post', '/api/v2/suppressions', { entries: [{ recipient: m.suppression }] }, [200, 201]);
      m.erasure = (
        await call(
          mode,
          'post',
          '/api/v2/privacy/erasures',
          { recipient: `+96650222000${mode === 'live' ? 1 : 2}` },
          [202],
        )
      ).erasure.id;
      m.auditTarget = m.erasure;
    }
    // Settings changed in live mode only.
    await call('live', 'put', '/api/v2/webhooks/chatapp-web', { url: receiver.url }, [200]);
    await call(
      'live',
      'patch',
      '/api/v2/account/compliance',
      { marketingWindow: { start: '08:00', end: '20:00' } },
      [200],
    );
    await call(
      'live',
      'patch',
      '/api/v2/account/keywords',
      { extraKeywords: [{ word: 'unsub', kind: 'opt_out' }] },
      [200],
    );
    await call('live', 'post', '/api/v2/verification/send', { to: phone(), channel: 'local_sms' }, [201]);
    // Each mode's endpoint test delivery.
    for (const mode of MODES) {
      await call(mode, 'post', `/api/v2/webhooks/endpoints/${made[mode].endpoint}/test`, {}, [200, 201, 202]);
      const deliveries = await get(mode, `/api/v2/webhooks/deliveries?limit=100`);
      made[mode].delivery = String((deliveries.body.data!.deliveries as { id: string }[])[0]?.id);
    }
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('the table names every GET route of the public document', () => {
    const doc = JSON.parse(readFileSync(join(__dirname, '../../openapi/public.json'), 'utf8')) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const routes = Object.entries(doc.paths)
      .filter(([, ops]) => ops.get)
      .map(([p]) => `GET ${p}`);
    expect(Object.keys(ROUTES).sort()).toEqual(routes.sort());
  });

  it.each(Object.keys(ROUTES))('%s: each mode sees only its own data', async (route) => {
    await ROUTES[route](get, made);
  });
});
