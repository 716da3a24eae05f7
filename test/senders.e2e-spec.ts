import { DataSource } from 'typeorm';
import { SendersService } from '../src/senders/senders.service';
import { createTestApp, TestApp, waitFor } from './support/app';
import { startReceiver, WebhookReceiver } from './support/webhook-receiver';

const ID_RE = /^snd_[0-9a-z]{24}$/;

describe('SMS senders (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    t = await createTestApp({ env: { WEBHOOK_DELIVERY_INTERVAL_MS: '25' } });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const create = (key: string, body: Record<string, unknown>) => t.http().post('/api/v2/sms-senders').set('X-API-Key', key).send(body);
  const storedRow = async (id: string) => (await t.app.get(DataSource).query('SELECT * FROM sms_senders WHERE id = ?', [id]))[0] as Record<string, unknown>;
  const callsFor = (senderId: string) => receiver.calls.filter((c) => (c.body as { data?: { smsSender?: { id?: string } } })?.data?.smsSender?.id === senderId);

  describe('POST /api/v2/sms-senders', () => {
    it('201 with exactly the spec body, status pending, no webhook', async () => {
      const acc = await t.createAccount();
      const res = await create(acc.key, { name: 'MyShop' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        success: true,
        message: expect.any(String),
        data: { smsSender: { id: expect.stringMatching(ID_RE), name: 'MyShop', status: 'pending', isDefault: false, webhookConfigured: false } },
      });
      const row = await storedRow(res.body.data.smsSender.id);
      expect(row).toMatchObject({ account_id: acc.id, name: 'MyShop', status: 'pending', webhook_url: null, sealed_webhook_secret: null });
    });

    it('webhookConfigured with a webhook; the secret is sealed at rest and never returned', async () => {
      const acc = await t.createAccount();
      const secret = 'very-secret-value-123';
      const res = await create(acc.key, { name: 'Hooked1', webhookUrl: receiver.url, webhookSecret: secret });
      expect(res.status).toBe(201);
      expect(res.body.data.smsSender.webhookConfigured).toBe(true);
      expect(JSON.stringify(res.body)).not.toContain(secret);
      const row = await storedRow(res.body.data.smsSender.id);
      expect(typeof row.sealed_webhook_secret).toBe('string');
      expect(row.sealed_webhook_secret).not.toContain(secret);
      const list = await t.http().get('/api/v2/sms-senders').set('X-API-Key', acc.key);
      expect(list.status).toBe(200);
      expect(JSON.stringify(list.body)).not.toContain(secret);
      expect(JSON.stringify(list.body)).not.toContain('sealed');
    });

    it('403 FORBIDDEN for a member key, even with every permission; nothing is created', async () => {
      const acc = await t.createAccount();
      const member = await t.memberKey(acc.id, ['messages:create', 'messages:read', 'api_keys:read']);
      const res = await create(member, { name: 'Member1' });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ success: false, code: 'FORBIDDEN' });
      const list = await t.http().get('/api/v2/sms-senders').set('X-API-Key', acc.key);
      expect(list.body.data.smsSenders).toEqual([]);
    });

    it('401 without a key', async () => {
      const res = await t.http().post('/api/v2/sms-senders').send({ name: 'NoKey' });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    });

    it('duplicate name in the account -> 400 VALIDATION_ERROR (case-insensitive); another account may use it', async () => {
      const acc = await t.createAccount();
      expect((await create(acc.key, { name: 'Dupe' })).status).toBe(201);
      for (const name of ['Dupe', 'DUPE']) {
        const res = await create(acc.key, { name });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR', error: `name "${name}" is already used by a sender of this account` });
      }
      const other = await t.createAccount();
      expect((await create(other.key, { name: 'Dupe' })).status).toBe(201);
      const list = await t.http().get('/api/v2/sms-senders').set('X-API-Key', acc.key);
      expect(list.body.data.smsSenders).toHaveLength(1);
    });

    it('concurrent requests for one name: the unique index lets exactly one through, the rest get 400', async () => {
      const acc = await t.createAccount();
      const results = await Promise.all(Array.from({ length: 6 }, () => create(acc.key, { name: 'Racer' })));
      expect(results.filter((r) => r.status === 201)).toHaveLength(1);
      for (const r of results.filter((x) => x.status !== 201)) expect(r.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
      const count = await t.app.get(DataSource).query('SELECT COUNT(*) AS n FROM sms_senders WHERE account_id = ?', [acc.id]);
      expect(Number(count[0].n)).toBe(1);
    });

    it.each([
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: 'TwelveChars1' }, 'name'],
      [{ name: 'bad-name' }, 'name'],
      [{ name: 'has space' }, 'name'],
      [{ name: '123456' }, 'name'],
      [{ name: 42 }, 'name'],
      [{ name: 'NoSecret', webhookUrl: 'https://example.com/hook' }, 'webhookSecret'],
      [{ name: 'EmptySecret', webhookUrl: 'https://example.com/hook', webhookSecret: '' }, 'webhookSecret'],
      [{ name: 'CtrlNewline', webhookUrl: 'https://example.com/hook', webhookSecret: 'abc\r\nX-Injected: 1' }, 'webhookSecret'],
      [{ name: 'CtrlNul', webhookUrl: 'https://example.com/hook', webhookSecret: 'abc\u0000def' }, 'webhookSecret'],
      [{ name: 'CtrlTab', webhookUrl: 'https://example.com/hook', webhookSecret: 'abc\tdef' }, 'webhookSecret'],
      [{ name: 'CtrlDel', webhookUrl: 'https://example.com/hook', webhookSecret: 'abc\u007f' }, 'webhookSecret'],
      [{ name: 'NonAscii', webhookUrl: 'https://example.com/hook', webhookSecret: 'sécret' }, 'webhookSecret'],
      [{ name: 'EdgeSpace', webhookUrl: 'https://example.com/hook', webhookSecret: ' abc' }, 'webhookSecret'],
      [{ name: 'NoUrl', webhookSecret: 'abc' }, 'webhookUrl'],
      [{ name: 'BadUrl', webhookUrl: 'not a url', webhookSecret: 'abc' }, 'webhookUrl'],
      [{ name: 'FtpUrl', webhookUrl: 'ftp://example.com/x', webhookSecret: 'abc' }, 'webhookUrl'],
      [{ name: 'Extra', unknown: 1 }, 'unknown'],
    ])('400 VALIDATION_ERROR for %j (names %s)', async (body, field) => {
      const acc = await t.createAccount();
      const res = await create(acc.key, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
      expect(res.body.error).toContain(field);
      const list = await t.http().get('/api/v2/sms-senders').set('X-API-Key', acc.key);
      expect(list.body.data.smsSenders).toEqual([]);
    });

    it('11 alphanumeric characters is the maximum accepted', async () => {
      const acc = await t.createAccount();
      expect((await create(acc.key, { name: 'Abcdefghi01' })).status).toBe(201);
    });
  });

  describe('GET /api/v2/sms-senders', () => {
    it('lists own senders only; a member needs messages:read', async () => {
      const acc = await t.createAccount();
      const other = await t.createAccount();
      await create(acc.key, { name: 'ListA' });
      await create(acc.key, { name: 'ListB' });
      await create(other.key, { name: 'ListC' });
      const reader = await t.memberKey(acc.id, ['messages:read']);
      const res = await t.http().get('/api/v2/sms-senders').set('X-API-Key', reader);
      expect(res.status).toBe(200);
      expect(res.body.data.smsSenders.map((s: { name: string }) => s.name)).toEqual(['ListA', 'ListB']);
      expect(res.body.data.smsSenders[0]).toEqual({
        id: expect.stringMatching(ID_RE), name: 'ListA', status: 'pending', isDefault: false, webhookConfigured: false,
        reason: null, reviewedAt: null, createdAt: expect.any(String),
      });
      const noPerm = await t.memberKey(acc.id, ['api_keys:read']);
      const denied = await t.http().get('/api/v2/sms-senders').set('X-API-Key', noPerm);
      expect(denied.status).toBe(403);
      expect(denied.body.code).toBe('FORBIDDEN');
    });
  });

  describe('review (admin) and sender events', () => {
    it('approve: status approved, first approved is default, event with exact headers and body', async () => {
      const acc = await t.createAccount();
      const secret = 'approve-secret-1';
      const created = await create(acc.key, { name: 'Approve1', webhookUrl: receiver.url, webhookSecret: secret });
      const id = created.body.data.smsSender.id as string;
      const before = Date.now();
      const res = await t.admin('post', `/admin/v1/sms-senders/${id}/approve`).send({});
      expect(res.status).toBe(200);
      expect(res.body.data.smsSender).toMatchObject({ id, accountId: acc.id, name: 'Approve1', status: 'approved', isDefault: true, webhookConfigured: true, reason: null });

      const [call] = await waitFor(async () => (callsFor(id).length ? callsFor(id) : null), { what: 'approval event' });
      expect(call.method).toBe('POST');
      expect(call.path).toBe('/hook');
      expect(call.headers['authorization']).toBe(`Bearer ${secret}`);
      expect(call.headers['x-service-event']).toBe('sms_sender.approved');
      expect(call.headers['x-service-delivery-id']).toMatch(/^whd_[0-9a-z]{24}$/);
      expect(call.headers['content-type']).toBe('application/json');
      expect(call.headers['x-api-key']).toBeUndefined();
      expect(call.body).toEqual({
        event: 'sms_sender.approved',
        timestamp: expect.any(String),
        data: { smsSender: { id, name: 'Approve1', status: 'approved', isDefault: true }, reason: null },
      });
      const ts = Date.parse((call.body as { timestamp: string }).timestamp);
      expect(ts).toBeGreaterThanOrEqual(before - 5);
      expect(new Date(ts).toISOString()).toBe((call.body as { timestamp: string }).timestamp);

      const senders = t.app.get(SendersService);
      expect(await senders.findApprovedByName(acc.id, 'approve1')).toEqual({ id, name: 'Approve1' });
      expect(await senders.findDefaultApproved(acc.id)).toEqual({ id, name: 'Approve1' });

      const again = await t.admin('post', `/admin/v1/sms-senders/${id}/approve`).send({});
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ success: false, code: 'INVALID_STATE' });
      const rejectApproved = await t.admin('post', `/admin/v1/sms-senders/${id}/reject`).send({ reason: 'late' });
      expect(rejectApproved.status).toBe(409);
      expect(rejectApproved.body.code).toBe('INVALID_STATE');
      const list = await t.http().get('/api/v2/sms-senders').set('X-API-Key', acc.key);
      expect(list.body.data.smsSenders[0]).toMatchObject({ status: 'approved', isDefault: true, reviewedAt: expect.any(String) });
      // Only the one event was sent.
      const deliveries = await t.http().get('/api/v2/webhooks/deliveries').set('X-API-Key', acc.key);
      expect(deliveries.body.data.deliveries).toHaveLength(1);
      expect(deliveries.body.data.deliveries[0]).toMatchObject({ event: 'sms_sender.approved', status: 'delivered', attemptCount: 1 });
    });

    it('reject with reason: event sms_sender.rejected carries the reason; the sender cannot send', async () => {
      const acc = await t.createAccount();
      const created = await create(acc.key, { name: 'Reject1', webhookUrl: receiver.url, webhookSecret: 'reject-secret' });
      const id = created.body.data.smsSender.id as string;
      const res = await t.admin('post', `/admin/v1/sms-senders/${id}/reject`).send({ reason: 'Brand name not verified' });
      expect(res.status).toBe(200);
      expect(res.body.data.smsSender).toMatchObject({ id, status: 'rejected', isDefault: false, reason: 'Brand name not verified' });
      const [call] = await waitFor(async () => (callsFor(id).length ? callsFor(id) : null), { what: 'rejection event' });
      expect(call.headers['authorization']).toBe('Bearer reject-secret');
      expect(call.headers['x-service-event']).toBe('sms_sender.rejected');
      expect(call.headers['content-type']).toBe('application/json');
      expect(call.body).toEqual({
        event: 'sms_sender.rejected',
        timestamp: expect.any(String),
        data: { smsSender: { id, name: 'Reject1', status: 'rejected', isDefault: false }, reason: 'Brand name not verified' },
      });
      const senders = t.app.get(SendersService);
      expect(await senders.findApprovedByName(acc.id, 'Reject1')).toBeNull();
      expect(await senders.findDefaultApproved(acc.id)).toBeNull();
      const again = await t.admin('post', `/admin/v1/sms-senders/${id}/reject`).send({});
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('INVALID_STATE');
    });

    it('only the first approved sender becomes default; a sender without webhook emits nothing', async () => {
      const acc = await t.createAccount();
      const a = (await create(acc.key, { name: 'FirstOne' })).body.data.smsSender.id as string;
      const b = (await create(acc.key, { name: 'SecondOne' })).body.data.smsSender.id as string;
      expect((await t.admin('post', `/admin/v1/sms-senders/${b}/approve`).send({})).body.data.smsSender.isDefault).toBe(true);
      expect((await t.admin('post', `/admin/v1/sms-senders/${a}/approve`).send({})).body.data.smsSender.isDefault).toBe(false);
      const senders = t.app.get(SendersService);
      expect(await senders.findDefaultApproved(acc.id)).toEqual({ id: b, name: 'SecondOne' });
      expect(await senders.findApprovedByName(acc.id, 'FIRSTONE')).toEqual({ id: a, name: 'FirstOne' });
      const deliveries = await t.http().get('/api/v2/webhooks/deliveries').set('X-API-Key', acc.key);
      expect(deliveries.body.data.deliveries).toEqual([]);
    });

    it('concurrent approvals: one 200, the others 409, exactly one event queued', async () => {
      const acc = await t.createAccount();
      const id = (await create(acc.key, { name: 'Concur', webhookUrl: receiver.url, webhookSecret: 's3cret' })).body.data.smsSender.id as string;
      const results = await Promise.all([1, 2, 3].map(() => t.admin('post', `/admin/v1/sms-senders/${id}/approve`).send({})));
      expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
      const rows = await t.app.get(DataSource).query('SELECT COUNT(*) AS n FROM webhook_deliveries WHERE account_id = ?', [acc.id]);
      expect(Number(rows[0].n)).toBe(1);
    });

    it('concurrent approvals of two senders of one account: exactly one default', async () => {
      const acc = await t.createAccount();
      const ids = await Promise.all(['ParA', 'ParB', 'ParC'].map(async (name) => (await create(acc.key, { name })).body.data.smsSender.id as string));
      const results = await Promise.all(ids.map((id) => t.admin('post', `/admin/v1/sms-senders/${id}/approve`).send({})));
      expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(results.filter((r) => r.body.data.smsSender.isDefault)).toHaveLength(1);
    });

    it('404 for an unknown sender, 401 without the admin token, 400 for a bad reason', async () => {
      const missing = await t.admin('post', '/admin/v1/sms-senders/snd_doesnotexist/approve').send({});
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe('NOT_FOUND');
      const noToken = await t.http().post('/admin/v1/sms-senders/snd_x/approve').send({});
      expect(noToken.status).toBe(401);
      const acc = await t.createAccount();
      const id = (await create(acc.key, { name: 'Reason' })).body.data.smsSender.id as string;
      const bad = await t.admin('post', `/admin/v1/sms-senders/${id}/reject`).send({ reason: 42 });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('VALIDATION_ERROR');
      expect((await storedRow(id)).status).toBe('pending');
    });

    it('admin list filters by status', async () => {
      const acc = await t.createAccount();
      const id = (await create(acc.key, { name: 'AdmList' })).body.data.smsSender.id as string;
      const res = await t.admin('get', '/admin/v1/sms-senders?status=pending');
      expect(res.status).toBe(200);
      expect(res.body.data.smsSenders.some((s: { id: string }) => s.id === id)).toBe(true);
      expect(res.body.data.smsSenders.every((s: { status: string }) => s.status === 'pending')).toBe(true);
      expect((await t.admin('get', '/admin/v1/sms-senders?status=nope')).status).toBe(400);
    });
  });
});

describe('SMS senders with WEBHOOK_ALLOW_INSECURE=false (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: { WEBHOOK_ALLOW_INSECURE: 'false' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it.each([
    'http://example.com/hook',
    'https://127.0.0.1/hook',
    'https://localhost/hook',
    'https://10.1.2.3/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/hook',
    'https://user:pass@93.184.215.14/hook',
  ])('refuses webhookUrl %s with 400 VALIDATION_ERROR', async (webhookUrl) => {
    const acc = await t.createAccount();
    const res = await t.http().post('/api/v2/sms-senders').set('X-API-Key', acc.key).send({ name: 'Secure', webhookUrl, webhookSecret: 'abc' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect(res.body.error).toContain('webhookUrl');
  });

  it('accepts https to a public address', async () => {
    const acc = await t.createAccount();
    const res = await t.http().post('/api/v2/sms-senders').set('X-API-Key', acc.key).send({ name: 'Secure', webhookUrl: 'https://93.184.215.14/hook', webhookSecret: 'abc' });
    expect(res.status).toBe(201);
    expect(res.body.data.smsSender.webhookConfigured).toBe(true);
  });
});
