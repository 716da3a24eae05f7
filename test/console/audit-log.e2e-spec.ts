import { createTestApp, TestAccount, TestApp } from '../support/app';
import { ConsoleBrowser, NARROW, openConsole, WIDE } from '../support/console-browser';

describe('Console: audit log under API and developers (real browser)', () => {
  let t: TestApp;
  let b: ConsoleBrowser;
  let acc: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    b = await openConsole(t.baseUrl);
    acc = await t.createAccount({ name: 'Audit Co' });
    await b.signIn(acc.key);
  });
  afterAll(async () => {
    await b?.close();
    await t?.close();
  });
  afterEach(() => {
    expect(b.outside).toEqual([]);
    expect(b.pageErrors).toEqual([]);
    expect(b.contractProblems).toEqual([]);
  });

  it('lists the changes with who made them, filters by type, and never shows a key', async () => {
    const created = await t
      .http()
      .post('/api/v2/api-keys')
      .set('X-API-Key', acc.key)
      .send({ name: 'Audited key', permissions: ['messages:read'] })
      .expect(201);
    await t.admin('post', `/admin/v1/accounts/${acc.id}/top-up`).send({ amount: 700 }).expect(200);
    await b.open('/developers');
    const table = b.page.getByRole('region', { name: 'Audit events' });
    await table.getByText('account.balance_changed').waitFor();
    await table.getByText('api_key.created').waitFor();
    await table.getByText(acc.keyId).waitFor();
    await table.getByText('operator').waitFor();
    expect(await table.textContent()).not.toContain(created.body.data.apiKey.key);
    await b.shoot('developers-audit', [WIDE, NARROW]);

    await b.page.getByLabel('Changes of type').selectOption('api_key.revoked');
    await b.page.getByText('No changes recorded.').waitFor();
    await b.page.getByLabel('Changes of type').selectOption('api_key.created');
    await table.getByText('api_key.created').waitFor();
    expect(await table.getByText('account.balance_changed').count()).toBe(0);
  });
});
