import { createTestApp, TestApp } from '../support/app';
import { chatappBody, smsBody } from '../support/templates-helpers';

// Operator reads the developer console needs: the account directory, one account, an atomic wallet
// top-up, and the template review queue across accounts.
describe('Operator API: account directory, top-up, template review list', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('accounts', () => {
    it('lists every account newest first with cursor paging; reads one; 404 for an unknown id', async () => {
      const ids: string[] = [];
      for (const name of ['Dir A', 'Dir B', 'Dir C']) ids.push((await t.createAccount({ name })).id);
      const first = await t.admin('get', '/admin/v1/accounts?limit=2').expect(200);
      expect(first.body.data.accounts.map((a: { id: string }) => a.id)).toEqual([ids[2], ids[1]]);
      expect(first.body.data.hasMore).toBe(true);
      const second = await t
        .admin('get', `/admin/v1/accounts?limit=2&cursor=${encodeURIComponent(first.body.data.nextCursor)}`)
        .expect(200);
      expect(second.body.data.accounts[0].id).toBe(ids[0]);
      const one = await t.admin('get', `/admin/v1/accounts/${ids[1]}`).expect(200);
      expect(one.body.data.account).toMatchObject({ id: ids[1], name: 'Dir B', walletBalance: 100000 });
      const missing = await t.admin('get', '/admin/v1/accounts/acc_nope').expect(404);
      expect(missing.body.code).toBe('NOT_FOUND');
      const bad = await t.admin('get', '/admin/v1/accounts?cursor=forged.cursor').expect(400);
      expect(bad.body.code).toBe('VALIDATION_ERROR');
      await t.http().get('/admin/v1/accounts').expect(401);
    });

    it('top-up adds to the balance as it is at that moment (a debit in between is kept)', async () => {
      const acc = await t.createAccount({ walletBalance: 1000 });
      // A wallet-paid send between the operator reading the balance and the top-up.
      await t
        .http()
        .post('/api/v2/messages/send')
        .set('X-API-Key', acc.key)
        .send({ to: '+966500000009', channel: 'local_sms', messageType: 'free_text', content: { text: 'x' } })
        .expect(201);
      const after = (await t.http().get('/api/v2/account').set('X-API-Key', acc.key).expect(200)).body.data
        .walletBalance as number;
      expect(after).toBeLessThan(1000);
      const res = await t.admin('post', `/admin/v1/accounts/${acc.id}/top-up`).send({ amount: 5000 }).expect(200);
      expect(res.body.data.account.walletBalance).toBe(after + 5000);
      const stored = await t.http().get('/api/v2/account').set('X-API-Key', acc.key).expect(200);
      expect(stored.body.data.walletBalance).toBe(after + 5000);
    });

    it('top-up refuses a non-positive or fractional amount, an unknown account and an overflow', async () => {
      const acc = await t.createAccount({ walletBalance: Number.MAX_SAFE_INTEGER - 10 });
      for (const amount of [0, -5, 1.5, '10', null]) {
        const res = await t.admin('post', `/admin/v1/accounts/${acc.id}/top-up`).send({ amount }).expect(400);
        expect(res.body.code).toBe('VALIDATION_ERROR');
      }
      expect(
        (await t.admin('post', '/admin/v1/accounts/acc_nope/top-up').send({ amount: 1 }).expect(404)).body.code,
      ).toBe('NOT_FOUND');
      const over = await t.admin('post', `/admin/v1/accounts/${acc.id}/top-up`).send({ amount: 11 }).expect(400);
      expect(over.body).toMatchObject({
        code: 'VALIDATION_ERROR',
        error: 'The wallet balance would exceed the largest supported amount',
      });
      const unchanged = await t.admin('get', `/admin/v1/accounts/${acc.id}`).expect(200);
      expect(unchanged.body.data.account.walletBalance).toBe(Number.MAX_SAFE_INTEGER - 10);
    });
  });

  describe('templates', () => {
    it('lists templates of every account by status with their account id, paged; approving moves one out of the pending queue', async () => {
      const a = await t.createAccount();
      const b = await t.createAccount();
      const post = (key: string, body: Record<string, unknown>) =>
        t.http().post('/api/v2/templates').set('X-API-Key', key).send(body).expect(201);
      const p1 = (await post(a.key, chatappBody({ name: 'review_one' }))).body.data.template;
      const p2 = (await post(b.key, chatappBody({ name: 'review_two' }))).body.data.template;
      await post(a.key, smsBody({ name: 'sms_active' }));
      expect(p1.status).toBe('pending');

      const page1 = await t.admin('get', '/admin/v1/templates?status=pending&limit=1').expect(200);
      expect(page1.body.data.templates).toEqual([
        expect.objectContaining({ id: p2.id, accountId: b.id, status: 'pending', name: 'review_two' }),
      ]);
      expect(page1.body.data.hasMore).toBe(true);
      const page2 = await t
        .admin(
          'get',
          `/admin/v1/templates?status=pending&limit=1&cursor=${encodeURIComponent(page1.body.data.nextCursor)}`,
        )
        .expect(200);
      expect(page2.body.data.templates[0]).toMatchObject({ id: p1.id, accountId: a.id });

      await t.admin('post', `/admin/v1/templates/${p1.id}/status`).send({ status: 'approved' }).expect(200);
      const pending = await t.admin('get', '/admin/v1/templates?status=pending').expect(200);
      expect(pending.body.data.templates.map((x: { id: string }) => x.id)).toEqual([p2.id]);
      const own = await t.http().get(`/api/v2/templates/${p1.id}`).set('X-API-Key', a.key).expect(200);
      expect(own.body.data.status).toBe('approved');
      expect((await t.admin('get', '/admin/v1/templates?status=bogus').expect(400)).body.code).toBe('VALIDATION_ERROR');
    });
  });
});
