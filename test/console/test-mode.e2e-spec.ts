import { createTestApp, TestAccount, TestApp } from '../support/app';
import { ConsoleBrowser, NARROW, openConsole, WIDE } from '../support/console-browser';
import { createTestKey } from '../support/test-mode-helpers';

// Issue 30: the console's "Test mode" switch and banner; the pages then show the account's test data only.
describe('Console: test mode (real browser)', () => {
  let t: TestApp;
  let b: ConsoleBrowser;
  let acc: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    b = await openConsole(t.baseUrl);
    acc = await t.createAccount({ name: 'Switch Co', walletBalance: 4321 });
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

  const send = (key: string, to: string) =>
    t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', key)
      .send({ to, channel: 'local_sms', messageType: 'free_text', content: { text: 'hi' } })
      .expect(201);
  const toggle = () => b.page.getByRole('switch', { name: 'Test mode' });
  const banner = () => b.page.getByRole('status').filter({ hasText: 'you are viewing test data' });
  const messages = () => b.page.getByRole('region', { name: 'Messages' });

  it('an owner switches to test mode: a banner, test data only, and back to live data', async () => {
    await send(acc.key, '+966551230001');
    const testKey = await createTestKey(t, acc.key, { name: 'suite' });
    await send(testKey.key, '+966551230002');

    await b.signIn(acc.key);
    expect(await toggle().isChecked()).toBe(false);
    expect(await banner().count()).toBe(0);
    await b.open('/messages');
    await messages().getByText('+966551230001').waitFor();
    expect(await messages().getByText('+966551230002').count()).toBe(0);

    await toggle().click();
    await banner().waitFor();
    await messages().getByText('+966551230002').waitFor();
    expect(await messages().getByText('+966551230001').count()).toBe(0);
    // The console made its own test owner key, kept in sessionStorage only.
    const stored = await b.storage();
    expect(stored.local).toBe(0);
    expect(stored.session['console.testKey']).toMatch(/^msk_test_/);
    const keys = await t.http().get('/api/v2/api-keys').set('X-API-Key', acc.key);
    expect(keys.body.data.apiKeys).toContainEqual(
      expect.objectContaining({ name: 'Console test mode', mode: 'test', role: 'owner' }),
    );
    await b.shoot('test-mode', [WIDE, NARROW]);
    await banner().waitFor();

    await toggle().click();
    await messages().getByText('+966551230001').waitFor();
    expect(await banner().count()).toBe(0);
    // Switching back reuses the tab's test key: no second key.
    await toggle().click();
    await banner().waitFor();
    const again = await t.http().get('/api/v2/api-keys').set('X-API-Key', acc.key);
    const made = (again.body.data.apiKeys as { name: string }[]).filter((k) => k.name === 'Console test mode');
    expect(made).toHaveLength(1);
    await toggle().click();
  });

  it('a member key cannot turn test mode on; signing in with a test key stays in test mode', async () => {
    const member = await t.memberKey(acc.id, ['messages:read', 'api_keys:read']);
    await b.page.getByRole('button', { name: 'Sign out' }).click();
    await b.signIn(member);
    await toggle().click();
    await b.page.getByRole('alert').getByText('Only an owner key can turn on test mode').waitFor();
    expect(await toggle().isChecked()).toBe(false);

    const testKey = await createTestKey(t, acc.key, { name: 'signed in' });
    await b.page.getByRole('button', { name: 'Sign out' }).click();
    await b.signIn(testKey.key);
    await banner().waitFor();
    expect(await toggle().isChecked()).toBe(true);
    expect(await toggle().isDisabled()).toBe(true);
  });
});
