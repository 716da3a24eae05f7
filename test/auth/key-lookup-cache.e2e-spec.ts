import { DataSource } from 'typeorm';
import { ApiKeysRepository } from '../../src/accounts/api-keys.repository';
import { createTestApp, TestApp, waitFor } from '../support/app';
import { expectError } from '../support/envelope';

/**
 * The key lookup (key still active + its account row) is kept for API_KEY_CACHE_MS (500 ms by
 * default): whatever this app changes is seen from its next request; a change it did not make (another
 * replica's, here a direct write to the database) within that bound.
 */
describe('API key lookup cache (e2e)', () => {
  let t: TestApp;
  let db: DataSource;
  beforeAll(async () => {
    t = await createTestApp();
    db = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  const account = (key: string) => t.http().get('/api/v2/account').set('X-API-Key', key);

  it('answers repeated requests of a key from one lookup', async () => {
    const acc = await t.createAccount();
    const lookups = jest.spyOn(t.app.get(ApiKeysRepository), 'findAnyCaller');
    try {
      for (let i = 0; i < 3; i++) expect((await account(acc.key)).status).toBe(200);
      expect(lookups.mock.calls.filter(([keyId]) => keyId === acc.keyId).length).toBeLessThan(3);
    } finally {
      lookups.mockRestore();
    }
  });

  it('a key revoked here is refused from the next request, though it was just used', async () => {
    const acc = await t.createAccount();
    const second = (await t.admin('post', `/admin/v1/accounts/${acc.id}/api-keys`).send({ role: 'owner' })).body.data
      .apiKey;
    expect((await account(second.key)).status).toBe(200);
    expect((await t.http().delete(`/api/v2/api-keys/${second.id}`).set('X-API-Key', acc.key)).status).toBe(200);
    expectError(await account(second.key), 401, 'UNAUTHORIZED');
  });

  it('suspension, phone and balance changes made here are seen from the next request', async () => {
    const acc = await t.createAccount({ walletBalance: 1000 });
    expect((await account(acc.key)).body.data).toMatchObject({ walletBalance: 1000, subscriptionActive: true });
    expect((await t.admin('post', `/admin/v1/accounts/${acc.id}/top-up`).send({ amount: 234 })).status).toBe(200);
    expect((await account(acc.key)).body.data.walletBalance).toBe(1234);
    const patch = { subscriptionActive: false, phoneVerified: false };
    expect((await t.admin('patch', `/admin/v1/accounts/${acc.id}`).send(patch)).status).toBe(200);
    expect((await account(acc.key)).body.data).toMatchObject(patch);
  });

  it("another replica's revocation (a direct write) is refused within API_KEY_CACHE_MS", async () => {
    const acc = await t.createAccount();
    const second = (await t.admin('post', `/admin/v1/accounts/${acc.id}/api-keys`).send({ role: 'owner' })).body.data
      .apiKey;
    expect((await account(second.key)).status).toBe(200);
    await db.query('UPDATE api_keys SET revoked_at = ? WHERE id = ?', [Date.now(), second.id]);
    const revokedAt = Date.now();
    await waitFor(async () => (await account(second.key)).status === 401, {
      timeoutMs: 1000,
      intervalMs: 20,
      what: 'the key refused',
    });
    expect(Date.now() - revokedAt).toBeLessThan(1000);
    expect((await account(acc.key)).status).toBe(200);
  });
});
