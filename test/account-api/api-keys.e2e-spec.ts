import { createHash } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ApiKeysRepository } from '../../src/accounts/api-keys.repository';
import { MAX_ACTIVE_KEYS } from '../../src/accounts/api-keys.service';
import { Clock } from '../../src/common/clock';
import { createTestApp, TestAccount, TestApp, testEnv, waitFor } from '../support/app';
import { expectError } from '../support/envelope';
import { SpawnedApp, spawnApp } from '../support/spawn-app';

const KEY_RE = /^msk_[A-Za-z0-9_-]{40}$/;
const VIEW_FIELDS = ['createdAt', 'id', 'lastUsedAt', 'mode', 'name', 'permissions', 'prefix', 'role'];

describe('API keys for owners (e2e)', () => {
  let t: TestApp;
  let db: DataSource;
  let owner: TestAccount;
  /** The app's one Clock, moved forward by the lastUsedAt test instead of sleeping. */
  let shiftMs = 0;

  beforeAll(async () => {
    t = await createTestApp();
    db = t.app.get(DataSource);
    const clock = t.app.get(Clock);
    clock.now = () => Date.now() + shiftMs;
    owner = await t.createAccount();
  });
  afterAll(() => t.close());

  const create = (key: string, body: unknown) =>
    t
      .http()
      .post('/api/v2/api-keys')
      .set('X-API-Key', key)
      .send(body as object);
  const list = (key: string, query: Record<string, string | number> = {}) =>
    t.http().get('/api/v2/api-keys').set('X-API-Key', key).query(query);
  const revoke = (key: string, id: string) => t.http().delete(`/api/v2/api-keys/${id}`).set('X-API-Key', key);
  const row = async (id: string): Promise<Record<string, unknown> | undefined> =>
    (await db.query('SELECT * FROM api_keys WHERE id = ?', [id]))[0];

  it('an owner creates a member key, shown once, with exactly the chosen permissions', async () => {
    const res = await create(owner.key, { name: '  Billing server  ', permissions: ['messages:read'] });
    expect(res.status).toBe(201);
    const k = res.body.data.apiKey;
    expect(Object.keys(k).sort()).toEqual([...VIEW_FIELDS, 'key'].sort());
    expect(k).toMatchObject({
      name: 'Billing server',
      role: 'member',
      permissions: ['messages:read'],
      lastUsedAt: null,
    });
    expect(k.key).toMatch(KEY_RE);
    expect(k.prefix).toBe(k.key.slice(0, 12));
    expect(Date.parse(k.createdAt)).toBeGreaterThan(Date.now() - 60_000);

    // Stored: the hash, never the key.
    const stored = await row(k.id);
    expect(stored).toMatchObject({
      account_id: owner.id,
      name: 'Billing server',
      role: 'member',
      key_hash: createHash('sha256').update(k.key).digest('hex'),
      revoked_at: null,
    });
    expect(JSON.stringify(stored)).not.toContain(k.key);

    // The new key can do what it was given and nothing else.
    expect((await t.http().get('/api/v2/messages').set('X-API-Key', k.key)).status).toBe(200);
    const send = await t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', k.key)
      .send({ to: '+966501234567', channel: 'local_sms', messageType: 'free_text', content: { text: 'hi' } });
    expectError(send, 403, 'FORBIDDEN', /messages:create/);
    expectError(await t.http().get('/api/v2/account').set('X-API-Key', k.key), 403, 'FORBIDDEN', /api_keys:read/);
    expectError(await list(k.key), 403, 'FORBIDDEN', /api_keys:read/);
  });

  it('a member key cannot create or revoke keys, even with api_keys:read', async () => {
    const acc = await t.createAccount();
    const member = (
      await create(acc.key, { name: 'reader', permissions: ['api_keys:read', 'messages:create', 'messages:read'] })
    ).body.data.apiKey;
    expectError(await create(member.key, { name: 'x', permissions: ['messages:read'] }), 403, 'FORBIDDEN', /owner/);
    expectError(await revoke(member.key, acc.keyId), 403, 'FORBIDDEN', /owner/);
    expectError(await revoke(member.key, member.id), 403, 'FORBIDDEN', /owner/);
    expect((await row(acc.keyId))!.revoked_at).toBeNull();
    expect((await db.query('SELECT id FROM api_keys WHERE account_id = ?', [acc.id])).length).toBe(2);
    // ...but it may read the list.
    const listed = await list(member.key);
    expect(listed.status).toBe(200);
    expect(listed.body.data.apiKeys.map((x: { id: string }) => x.id).sort()).toEqual([acc.keyId, member.id].sort());
  });

  it('lists active keys, owner keys included, newest first, never a key or hash, paged by cursor', async () => {
    const acc = await t.createAccount();
    const ids = [acc.keyId];
    for (const name of ['one', 'two', 'three'])
      ids.push((await create(acc.key, { name, permissions: ['messages:read'] })).body.data.apiKey.id);
    const gone = ids.pop()!;
    expect((await revoke(acc.key, gone)).status).toBe(200);

    const all = await list(acc.key);
    expect(all.status).toBe(200);
    expect(all.body.data).toMatchObject({ nextCursor: null, hasMore: false });
    const keys = all.body.data.apiKeys as Record<string, unknown>[];
    expect(keys.map((k) => k.id)).toEqual([...ids].reverse());
    for (const k of keys) expect(Object.keys(k).sort()).toEqual(VIEW_FIELDS);
    expect(keys[keys.length - 1]).toMatchObject({
      role: 'owner',
      name: 'Owner key',
      permissions: ['messages:create', 'messages:read', 'api_keys:read'],
    });
    const hashes: { key_hash: string }[] = await db.query('SELECT key_hash FROM api_keys WHERE account_id = ?', [
      acc.id,
    ]);
    for (const h of hashes) expect(JSON.stringify(all.body)).not.toContain(h.key_hash);

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await list(acc.key, { limit: 1, ...(cursor ? { cursor } : {}) });
      expect(page.status).toBe(200);
      seen.push(...page.body.data.apiKeys.map((k: { id: string }) => k.id));
      cursor = page.body.data.nextCursor ?? undefined;
      expect(page.body.data.hasMore).toBe(cursor !== undefined);
    } while (cursor);
    expect(seen).toEqual(keys.map((k) => k.id));

    const first = await list(acc.key, { limit: 1 });
    expectError(await list(acc.key, { cursor: `${first.body.data.nextCursor}x` }), 400, 'VALIDATION_ERROR', /cursor/);
    expectError(await list(owner.key, { cursor: first.body.data.nextCursor }), 400, 'VALIDATION_ERROR', /cursor/);
    expectError(await list(acc.key, { limit: 0 }), 400, 'VALIDATION_ERROR', /limit/);
  });

  it('an owner key cannot revoke itself; another owner key can revoke it', async () => {
    const acc = await t.createAccount();
    expectError(await revoke(acc.key, acc.keyId), 409, 'INVALID_STATE', /itself/);
    expect((await row(acc.keyId))!.revoked_at).toBeNull();
    expect((await t.http().get('/api/v2/account').set('X-API-Key', acc.key)).status).toBe(200);

    const second = await t.admin('post', `/admin/v1/accounts/${acc.id}/api-keys`).send({ role: 'owner' });
    expect(second.status).toBe(201);
    const res = await revoke(second.body.data.apiKey.key, acc.keyId);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { id: acc.keyId, revoked: true, revokedAt: expect.any(String) } });
    expect(Number((await row(acc.keyId))!.revoked_at)).toBe(Date.parse(res.body.data.revokedAt));
  });

  it("another account's key, an unknown id and an already revoked key are 404 API_KEY_NOT_FOUND", async () => {
    const a = await t.createAccount();
    const b = await t.createAccount();
    const aMember = (await create(a.key, { name: 'a member', permissions: ['messages:read'] })).body.data.apiKey;
    expectError(await revoke(b.key, aMember.id), 404, 'API_KEY_NOT_FOUND');
    expectError(await revoke(b.key, a.keyId), 404, 'API_KEY_NOT_FOUND');
    expect((await row(aMember.id))!.revoked_at).toBeNull();
    expect((await t.http().get('/api/v2/messages').set('X-API-Key', aMember.key)).status).toBe(200);
    expectError(await revoke(b.key, 'key_unknown'), 404, 'API_KEY_NOT_FOUND');
    expect((await revoke(a.key, aMember.id)).status).toBe(200);
    expectError(await revoke(a.key, aMember.id), 404, 'API_KEY_NOT_FOUND');
  });

  it('refuses invalid bodies with 400 VALIDATION_ERROR naming the field', async () => {
    const cases: [unknown, RegExp][] = [
      [{ permissions: ['messages:read'] }, /name/],
      [{ name: '', permissions: ['messages:read'] }, /name must be 1 to 100/],
      [{ name: '   ', permissions: ['messages:read'] }, /name must be 1 to 100/],
      [{ name: 'x'.repeat(101), permissions: ['messages:read'] }, /name must be 1 to 100/],
      [{ name: 'two\nlines', permissions: ['messages:read'] }, /control characters/],
      [{ name: 42, permissions: ['messages:read'] }, /name must be a string/],
      [{ name: 'k' }, /permissions/],
      [{ name: 'k', permissions: [] }, /at least one permission/],
      [{ name: 'k', permissions: 'messages:read' }, /permissions must be an array/],
      [
        { name: 'k', permissions: ['messages:delete'] },
        /permissions must each be one of: messages:create, messages:read, api_keys:read/,
      ],
      [{ name: 'k', permissions: ['messages:read', 'messages:read'] }, /twice/],
      [{ name: 'k', permissions: ['messages:read'], role: 'owner' }, /role owner is only for test keys/],
      [{ name: 'k', permissions: ['messages:read'], role: 'admin' }, /role must be member or owner/],
      [{ name: 'k', permissions: ['messages:read'], mode: 'prod' }, /mode must be live or test/],
    ];
    const acc = await t.createAccount();
    for (const [body, text] of cases) expectError(await create(acc.key, body), 400, 'VALIDATION_ERROR', text);
    expectError(
      await t
        .http()
        .post('/api/v2/api-keys')
        .set('X-API-Key', acc.key)
        .set('Content-Type', 'application/json')
        .send('{"name":'),
      400,
      'INVALID_REQUEST_BODY',
    );
    expect((await db.query('SELECT id FROM api_keys WHERE account_id = ?', [acc.id])).length).toBe(1);
    const longest = await create(acc.key, { name: 'y'.repeat(100), permissions: ['messages:read'] });
    expect(longest.status).toBe(201);
  });

  it(`holds at most ${MAX_ACTIVE_KEYS} active keys per account, also under concurrent creation`, async () => {
    const acc = await t.createAccount();
    for (let i = 1; i < MAX_ACTIVE_KEYS - 2; i++)
      expect((await create(acc.key, { name: `k${i}`, permissions: ['messages:read'] })).status).toBe(201);
    // Two places left; five owners' requests race for them.
    const raced = await Promise.all(
      Array.from({ length: 5 }, (_, i) => create(acc.key, { name: `race${i}`, permissions: ['messages:read'] })),
    );
    expect(raced.map((r) => r.status).sort()).toEqual([201, 201, 409, 409, 409]);
    for (const r of raced.filter((x) => x.status === 409)) expectError(r, 409, 'API_KEY_LIMIT_REACHED', /revoke one/);
    const active = async () =>
      Number(
        (await db.query('SELECT COUNT(*) AS n FROM api_keys WHERE account_id = ? AND revoked_at IS NULL', [acc.id]))[0]
          .n,
      );
    expect(await active()).toBe(MAX_ACTIVE_KEYS);

    const victim = raced.find((r) => r.status === 201)!.body.data.apiKey.id;
    expect((await revoke(acc.key, victim)).status).toBe(200);
    expect((await create(acc.key, { name: 'after revoke', permissions: ['messages:read'] })).status).toBe(201);
    expect(await active()).toBe(MAX_ACTIVE_KEYS);
  });

  it('records lastUsedAt when a key authenticates, at most once a minute per key, without waiting for the write', async () => {
    const acc = await t.createAccount();
    const k = (await create(acc.key, { name: 'used', permissions: ['messages:read'] })).body.data.apiKey;
    const touches = jest.spyOn(t.app.get(ApiKeysRepository), 'touchLastUsed');
    try {
      for (let i = 0; i < 5; i++)
        expect((await t.http().get('/api/v2/messages').set('X-API-Key', k.key)).status).toBe(200);
      const first = await waitFor(async () => (await row(k.id))!.last_used_at, { what: 'last_used_at set' });
      expect(touches.mock.calls.filter((c) => c[1] === k.id)).toEqual([
        [acc.id, k.id, expect.any(Number), expect.any(Number)],
      ]);
      const listed = (await list(acc.key)).body.data.apiKeys.find((x: { id: string }) => x.id === k.id);
      expect(listed.lastUsedAt).toBe(new Date(Number(first)).toISOString());

      shiftMs += 61_000;
      expect((await t.http().get('/api/v2/messages').set('X-API-Key', k.key)).status).toBe(200);
      expect((await t.http().get('/api/v2/messages').set('X-API-Key', k.key)).status).toBe(200);
      await waitFor(async () => Number((await row(k.id))!.last_used_at) >= Number(first) + 61_000, {
        what: 'last_used_at moved on',
      });
      expect(touches.mock.calls.filter((c) => c[1] === k.id)).toHaveLength(2);
    } finally {
      touches.mockRestore();
    }
  });

  describe('revocation on a second replica (its own process, same database)', () => {
    let replica: SpawnedApp;
    let replicaUrl: string;

    beforeAll(async () => {
      replica = spawnApp(
        testEnv({ DATABASE_URL: t.databaseUrl, PORT: '0', HOST: '127.0.0.1', SCHEDULERS_ENABLED: 'false' }),
      );
      replicaUrl = /listening on (http:\S+) /.exec(await replica.waitForOutput(/listening on http:\S+ /, 120_000))![1];
    }, 150_000);
    afterAll(() => replica?.stop());

    it('a revoked key is refused at once here and within 1 s on the other replica', async () => {
      const acc = await t.createAccount();
      const k = (await create(acc.key, { name: 'to revoke', permissions: ['messages:read'] })).body.data.apiKey;
      // Used on both replicas first, so neither could be answering from a stale lookup.
      expect((await t.http().get('/api/v2/messages').set('X-API-Key', k.key)).status).toBe(200);
      expect((await request(replicaUrl).get('/api/v2/messages').set('X-API-Key', k.key)).status).toBe(200);

      expect((await revoke(acc.key, k.id)).status).toBe(200);
      const revokedAt = Date.now();
      expectError(await t.http().get('/api/v2/messages').set('X-API-Key', k.key), 401, 'UNAUTHORIZED');
      await waitFor(
        async () => (await request(replicaUrl).get('/api/v2/messages').set('X-API-Key', k.key)).status === 401,
        { timeoutMs: 1000, intervalMs: 20, what: 'replica refuses the revoked key' },
      );
      expect(Date.now() - revokedAt).toBeLessThan(1000);
      expectError(await request(replicaUrl).get('/api/v2/messages').set('X-API-Key', k.key), 401, 'UNAUTHORIZED');
      // The owner key still works on both.
      expect((await request(replicaUrl).get('/api/v2/api-keys').set('X-API-Key', acc.key)).status).toBe(200);
    });
  });
});
