import { ADMIN_TOKEN, createTestApp, TestAccount, TestApp } from '../support/app';
import { ConsoleBrowser, NARROW, openConsole, WIDE } from '../support/console-browser';
import { smsBody } from '../support/templates-helpers';

describe('Console: sender names and the operator area (real browser)', () => {
  let t: TestApp;
  let b: ConsoleBrowser;
  let acc: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    b = await openConsole(t.baseUrl);
    acc = await t.createAccount({ name: 'Sender Co' });
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

  it('the owner requests a sender name; the operator approves it; the account sees it approved', async () => {
    await b.open('/senders');
    await b.page.getByLabel('Sender name', { exact: true }).fill('ACMESHOP');
    await b.page.getByRole('button', { name: 'Request sender name' }).click();
    await b.page.getByTestId('sender-ACMESHOP').getByText('pending').waitFor();
    await b.shoot('senders', [WIDE, NARROW]);

    // The operator area asks for the admin token first (a wrong one shows the API error).
    await b.open('/operator/senders');
    await b.page.getByLabel('Admin token', { exact: true }).fill('not-the-admin-token-000');
    await b.page.getByRole('button', { name: 'Sign in to the operator area' }).click();
    await expect(b.page.getByRole('alert').textContent()).resolves.toContain('UNAUTHORIZED');
    await b.shoot('operator-sign-in');
    await b.page.getByLabel('Admin token', { exact: true }).fill(ADMIN_TOKEN);
    await b.page.getByRole('button', { name: 'Sign in to the operator area' }).click();
    await b.page.getByRole('heading', { name: 'Operator: sender review' }).waitFor();
    expect(await b.storage()).toEqual({
      session: { 'console.apiKey': acc.key, 'console.adminToken': ADMIN_TOKEN },
      local: 0,
    });
    await b.page.getByRole('region', { name: 'Sender names to review' }).getByText('ACMESHOP').waitFor();
    await b.shoot('operator-senders');
    await b.page.getByRole('button', { name: 'Approve ACMESHOP' }).click();
    await b.page.getByRole('status').getByText('approved').waitFor();

    const stored = await t.http().get('/api/v2/sms-senders').set('X-API-Key', acc.key).expect(200);
    expect(stored.body.data.smsSenders).toEqual([expect.objectContaining({ name: 'ACMESHOP', status: 'approved' })]);
    await b.open('/senders');
    await b.page.getByTestId('sender-ACMESHOP').getByText('approved').waitFor();
  });

  it('the operator creates an account (owner key shown once) and tops up its wallet', async () => {
    await b.open('/operator');
    await b.page.getByLabel('Name', { exact: true }).fill('Made In Console');
    await b.page.getByLabel('Wallet balance', { exact: true }).fill('12.50');
    await b.page.getByRole('button', { name: 'Create account' }).click();
    const key = await b.page.getByRole('textbox', { name: 'Owner API key' }).inputValue();
    const me = await t.http().get('/api/v2/account').set('X-API-Key', key).expect(200);
    expect(me.body.data).toMatchObject({ name: 'Made In Console', walletBalance: 1250 });
    const id = me.body.data.id as string;
    await b.page.getByRole('button', { name: 'Top up Made In Console' }).click();
    await b.page.getByLabel('Top up Made In Console by (SAR)', { exact: true }).fill('7.25');
    await b.page.getByRole('button', { name: 'Add to wallet' }).click();
    await b.page
      .getByTestId(`wallet-${id}`)
      .filter({ hasText: /^19\.75 SAR$/ })
      .waitFor();
    const after = await t.http().get('/api/v2/account').set('X-API-Key', key).expect(200);
    expect(after.body.data.walletBalance).toBe(1975);
    await b.shoot('operator-accounts', [WIDE, NARROW]);
  });

  it('template review: a pending template is approved from the queue; the sandbox page lists deliveries and takes a fault', async () => {
    const tpl = (
      await t
        .http()
        .post('/api/v2/templates')
        .set('X-API-Key', acc.key)
        .send(smsBody({ name: 'promo_text' }))
        .expect(201)
    ).body.data.template;
    await t.admin('post', `/admin/v1/templates/${tpl.id}/status`).send({ status: 'pending' }).expect(200);
    await b.open('/operator/templates');
    await b.page.getByRole('region', { name: 'Templates to review' }).getByText('promo_text').waitFor();
    await b.shoot('operator-templates');
    await b.page.getByRole('button', { name: 'Approve promo_text' }).click();
    await b.page.getByRole('status').getByText('approved').waitFor();
    const read = await t.http().get(`/api/v2/templates/${tpl.id}`).set('X-API-Key', acc.key).expect(200);
    expect(read.body.data.status).toBe('approved');

    await t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send({
        to: '+966500000077',
        channel: 'local_sms',
        messageType: 'free_text',
        content: { text: 'to the sandbox' },
      })
      .expect(201);
    await b.open('/operator/sandbox');
    await b.page.getByRole('region', { name: 'Sandbox deliveries' }).getByText('to the sandbox').waitFor();
    await b.page.getByLabel('Fault', { exact: true }).selectOption('unavailable');
    await b.page.getByLabel('Calls that fail', { exact: true }).fill('2');
    await b.page.getByRole('button', { name: 'Add fault' }).click();
    await b.page.getByRole('status').filter({ hasText: 'unavailable x 2' }).waitFor();
    await b.shoot('operator-sandbox');
    await b.page.getByRole('button', { name: 'Clear all faults' }).click();
    await b.page.getByText('1 fault(s) cleared.').waitFor();

    // Leaving the operator area forgets the admin token (the account's key stays signed in).
    await b.page.getByRole('button', { name: 'Leave operator area' }).click();
    await b.page.getByRole('heading', { name: 'Operator sign-in' }).waitFor();
    expect(await b.storage()).toEqual({ session: { 'console.apiKey': acc.key }, local: 0 });
  });
});
