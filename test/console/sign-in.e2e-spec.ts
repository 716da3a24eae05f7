import { createTestApp, TestAccount, TestApp } from '../support/app';
import { ConsoleBrowser, NARROW, openConsole, WIDE } from '../support/console-browser';
import { RECEIPT_INTAKE, ReceiptIntake } from '../../src/providers/provider-events';

describe('Console: sign-in and overview (real browser)', () => {
  let t: TestApp;
  let b: ConsoleBrowser;
  let acc: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    b = await openConsole(t.baseUrl);
    acc = await t.createAccount({
      name: 'Browser Co',
      walletBalance: 12345,
      freeMessages: 7,
      planName: 'Starter',
      messageQuota: 1000,
    });
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

  it('a wrong key shows the API error code and text, and nothing is stored', async () => {
    await b.open('/');
    await b.shoot('sign-in', [WIDE, NARROW]);
    await b.page.getByLabel('API key', { exact: true }).fill('msk_not_a_real_key_0000000000000000');
    await b.page.getByRole('button', { name: 'Sign in' }).click();
    const alert = b.page.getByRole('alert');
    await expect(alert.textContent()).resolves.toContain('UNAUTHORIZED');
    await b.shoot('sign-in-error');
    expect(await b.storage()).toEqual({ session: {}, local: 0 });
  });

  it('signs in with a key (sessionStorage only), shows balance, plan and free messages, signs out', async () => {
    await t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send({ to: '+966500000001', channel: 'local_sms', messageType: 'free_text', content: { text: 'hi' } })
      .expect(201);
    const second = await t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send({ to: '+966500000002', channel: 'local_sms', messageType: 'free_text', content: { text: 'hi' } })
      .expect(201);
    await t.app.get<ReceiptIntake>(RECEIPT_INTAKE).accept([
      {
        providerMessageId: `sbx_${second.body.data.messages[0].id}`,
        status: 'delivered',
        providerStatus: 'DELIVRD',
        errorCode: null,
        providerErrorCode: null,
        at: Date.now(),
      },
    ]);
    await b.page.getByLabel('API key', { exact: true }).fill(acc.key);
    await b.page.getByRole('button', { name: 'Sign in' }).click();
    await b.page.getByRole('heading', { name: 'Overview: Browser Co' }).waitFor();
    expect(await b.storage()).toEqual({ session: { 'console.apiKey': acc.key }, local: 0 });
    await expect(b.page.getByTestId('balance').textContent()).resolves.toBe('123.45 SAR');
    await expect(b.page.getByText('0 of 1000 messages used').count()).resolves.toBe(1);
    const sent = b.page.getByRole('list', { name: 'Messages today by status' }).getByRole('link', { name: /sent/ });
    await expect(sent.textContent()).resolves.toMatch(/^1\s*sent$/);
    const delivered = b.page
      .getByRole('list', { name: 'Messages today by status' })
      .getByRole('link', { name: /delivered/ });
    await expect(delivered.textContent()).resolves.toMatch(/^1\s*delivered$/);
    await b.shoot('overview', [WIDE, NARROW]);

    await b.page.getByRole('button', { name: 'Sign out' }).click();
    await b.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await b.storage()).toEqual({ session: {}, local: 0 });
  });

  it('works by keyboard alone, with a visible focus ring', async () => {
    const k = b.page.keyboard;
    await b.open('/');
    // Tab order: skip link, brand, navigation..., the key field.
    await k.press('Tab');
    expect(await b.page.evaluate<string>('document.activeElement.textContent')).toBe('Skip to content');
    await b.page.getByLabel('API key', { exact: true }).focus();
    await k.type(acc.key);
    await k.press('Enter');
    await b.page.getByRole('heading', { name: 'Overview: Browser Co' }).waitFor();
    // Reach "Messages" in the navigation with Tab and open it with Enter.
    await b.page.getByRole('link', { name: 'Skip to content' }).focus();
    for (let i = 0; i < 20; i += 1) {
      await k.press('Tab');
      if ((await b.page.evaluate<string>('document.activeElement.textContent')) === 'Messages') break;
    }
    const outline = await b.page.evaluate<string>(
      'getComputedStyle(document.activeElement).outlineStyle + " " + getComputedStyle(document.activeElement).outlineWidth',
    );
    expect(outline).toBe('solid 3px');
    await k.press('Enter');
    await b.page.getByRole('heading', { name: 'Messages' }).waitFor();
    // The new page's heading takes the focus, as a page load would.
    await b.page.locator('h1:focus', { hasText: 'Messages' }).waitFor();
  });
});
