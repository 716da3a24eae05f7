import { createTestApp, REQUEST_ID_RE, TestAccount, TestApp } from '../support/app';
import { expectError } from '../support/envelope';
import { privacyHelpers } from '../support/privacy-helpers';

// The audit trail: one entry per kind of change, with actor and request id, never a secret.
interface AuditEventJson {
  id: string;
  type: string;
  actor: string;
  requestId: string | null;
  target: string | null;
  changes: Record<string, unknown>;
  createdAt: string;
}

describe('Privacy: audit events (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;
  const h = privacyHelpers(() => t);
  beforeAll(async () => {
    t = await createTestApp({ env: { ERASURE_TICK_MS: '200' } });
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(async () => {
    acc = await t.createAccount();
  });

  const list = (query: Record<string, string | number> = {}, key = acc.key) =>
    t.http().get('/api/v2/audit-events').set('X-API-Key', key).query(query);
  const events = async (query: Record<string, string | number> = {}): Promise<AuditEventJson[]> => {
    const res = await list({ limit: 100, ...query });
    expect(res.status).toBe(200);
    return res.body.data.events as AuditEventJson[];
  };
  const one = async (type: string): Promise<AuditEventJson> => {
    const found = await events({ type });
    expect(found).toHaveLength(1);
    return found[0];
  };

  it('records API keys created and revoked with the acting key and the request id, never the key', async () => {
    const created = await t
      .http()
      .post('/api/v2/api-keys')
      .set('X-API-Key', acc.key)
      .send({ name: 'CI', permissions: ['messages:read'] });
    expect(created.status).toBe(201);
    const keyId = created.body.data.apiKey.id as string;
    const plain = created.body.data.apiKey.key as string;
    const event = await one('api_key.created');
    expect(event).toMatchObject({
      actor: acc.keyId,
      target: keyId,
      requestId: created.headers['x-request-id'],
      changes: { name: 'CI', role: 'member', permissions: ['messages:read'] },
    });
    expect(event.requestId).toMatch(REQUEST_ID_RE);
    const revoked = await t.http().delete(`/api/v2/api-keys/${keyId}`).set('X-API-Key', acc.key);
    expect(revoked.status).toBe(200);
    expect(await one('api_key.revoked')).toMatchObject({ actor: acc.keyId, target: keyId });
    // The operator's key for the account: actor `operator`.
    const issued = await t
      .admin('post', `/admin/v1/accounts/${acc.id}/api-keys`)
      .send({ role: 'member', permissions: [] });
    expect(issued.status).toBe(201);
    const all = await events({ type: 'api_key.created' });
    expect(all.map((e) => e.actor)).toEqual(['operator', acc.keyId]);
    const text = JSON.stringify(await events());
    expect(text).not.toContain(plain);
    expect(text).not.toContain(issued.body.data.apiKey.key);
  });

  it('records webhook settings and endpoint changes without the signing secret or webhook key', async () => {
    const put = await t
      .http()
      .put('/api/v2/webhooks/chatapp-web')
      .set('X-API-Key', acc.key)
      .send({ url: 'http://127.0.0.1:9/a' });
    expect(put.status).toBeLessThan(300);
    const rotated = await t.http().post('/api/v2/webhooks/chatapp-web/rotate-key').set('X-API-Key', acc.key);
    const ep = await t
      .http()
      .post('/api/v2/webhooks/endpoints')
      .set('X-API-Key', acc.key)
      .send({ url: 'http://127.0.0.1:9/b', events: ['message.sent'] });
    expect(ep.status).toBe(201);
    const id = ep.body.data.endpoint.id as string;
    await t
      .http()
      .patch(`/api/v2/webhooks/endpoints/${id}`)
      .set('X-API-Key', acc.key)
      .send({ events: ['*'] });
    const rot = await t.http().post(`/api/v2/webhooks/endpoints/${id}/rotate-secret`).set('X-API-Key', acc.key);
    await t.http().delete(`/api/v2/webhooks/endpoints/${id}`).set('X-API-Key', acc.key);

    const settings = await events({ type: 'webhook.settings_changed' });
    expect(settings.map((e) => e.changes)).toEqual([
      { webhookApiKey: 'rotated' },
      { url: { before: null, after: 'http://127.0.0.1:9/a' } },
    ]);
    expect((await one('webhook.endpoint_created')).changes).toEqual({
      after: { url: 'http://127.0.0.1:9/b', events: ['message.sent'], description: null, status: 'enabled' },
    });
    const updates = await events({ type: 'webhook.endpoint_updated' });
    expect(updates).toHaveLength(2);
    expect(updates[1].changes).toMatchObject({ before: { events: ['message.sent'] }, after: { events: ['*'] } });
    expect(await one('webhook.endpoint_deleted')).toMatchObject({ target: id });
    const text = JSON.stringify(await events());
    for (const secret of [
      put.body.data.webhookApiKey,
      rotated.body.data.webhookApiKey,
      ep.body.data.endpoint.secret,
      rot.body.data.endpoint.secret,
    ])
      expect(text).not.toContain(String(secret));
  });

  it('records the default sender, geo permissions, erasures and the operator’s balance and plan changes', async () => {
    const sender = async (name: string): Promise<string> => {
      const id = (await t.http().post('/api/v2/sms-senders').set('X-API-Key', acc.key).send({ name })).body.data
        .smsSender.id as string;
      await t.admin('post', `/admin/v1/sms-senders/${id}/approve`).send({});
      return id;
    };
    const first = await sender('FirstCo');
    const second = await sender('SecondCo');
    expect((await t.http().post(`/api/v2/sms-senders/${second}/default`).set('X-API-Key', acc.key)).status).toBe(200);
    expect((await one('sender.default_changed')).changes).toEqual({
      before: { id: first, name: 'FirstCo' },
      after: { id: second, name: 'SecondCo' },
    });

    await t.admin('put', `/admin/v1/accounts/${acc.id}/geo-permissions`).send({ ownerSelectable: ['SA', 'AE'] });
    await t
      .http()
      .patch('/api/v2/account/geo-permissions')
      .set('X-API-Key', acc.key)
      .send({ channels: { local_sms: ['AE'] } });
    const geo = await events({ type: 'geo_permissions.changed' });
    expect(geo.map((e) => e.actor)).toEqual([acc.keyId, 'operator']);
    expect(geo[0].changes).toMatchObject({ after: { channels: { local_sms: ['AE'] } } });

    await t.admin('post', `/admin/v1/accounts/${acc.id}/top-up`).send({ amount: 500 });
    await t.admin('patch', `/admin/v1/accounts/${acc.id}`).send({ planName: 'Pro', messageQuota: 1000 });
    expect((await events({ type: 'account.balance_changed' }))[0]).toMatchObject({
      actor: 'operator',
      changes: { topUp: 500 },
    });
    expect((await one('account.plan_changed')).changes).toEqual({
      planName: { before: null, after: 'Pro' },
      messageQuota: { before: 0, after: 1000 },
    });
    await t.admin('patch', `/admin/v1/accounts/${acc.id}`).send({ retentionDays: 30 });
    expect(await one('account.retention_changed')).toMatchObject({
      actor: 'operator',
      changes: { retentionDays: { before: null, after: 30 } },
    });

    const erasure = await h.requestErasure(acc, '+966501234567');
    await h.completed(acc, erasure.body.data.erasure.id);
    expect(await one('privacy.erasure_requested')).toMatchObject({
      actor: acc.keyId,
      target: erasure.body.data.erasure.id,
    });
    const done = await one('privacy.erasure_completed');
    expect(done).toMatchObject({ actor: 'system', requestId: null });
    expect(JSON.stringify(await events())).not.toContain('501234567');
  });

  it('pages by cursor, filters by time, refuses bad filters and member keys', async () => {
    for (const name of ['k1', 'k2', 'k3'])
      await t
        .http()
        .post('/api/v2/api-keys')
        .set('X-API-Key', acc.key)
        .send({ name, permissions: ['messages:read'] });
    const first = await list({ limit: 2 });
    expect(first.body.data.events).toHaveLength(2);
    expect(first.body.data.hasMore).toBe(true);
    const second = await list({ limit: 2, cursor: first.body.data.nextCursor });
    expect(second.body.data.events.map((e: AuditEventJson) => e.changes.name)).toEqual(['k1']);
    expect(second.body.data.hasMore).toBe(false);
    expect(await events({ to: '2000-01-01T00:00:00Z' })).toEqual([]);
    expect(await events({ from: '2000-01-01T00:00:00Z' })).toHaveLength(3);
    expectError(await list({ type: 'nope' }), 400, 'VALIDATION_ERROR');
    expectError(await list({ from: 'yesterday' }), 400, 'VALIDATION_ERROR');
    expectError(await list({ from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' }), 400, 'VALIDATION_ERROR');
    const member = await t.memberKey(acc.id, ['messages:read']);
    expectError(await list({}, member), 403, 'FORBIDDEN');
    const other = await t.createAccount();
    expect((await list({}, other.key)).body.data.events).toEqual([]);
  });
});
