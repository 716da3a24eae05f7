import { createTestApp, TestAccount, TestApp, waitFor } from '../support/app';
import { ConsoleBrowser, NARROW, openConsole, WIDE } from '../support/console-browser';
import { startReceiver, WebhookReceiver } from '../support/webhook-receiver';

describe('Console: API and developers (real browser)', () => {
  let t: TestApp;
  let b: ConsoleBrowser;
  let acc: TestAccount;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    // testEnv sets WEBHOOK_ALLOW_INSECURE: a plain-HTTP receiver on 127.0.0.1 is allowed in tests only.
    t = await createTestApp();
    receiver = await startReceiver();
    b = await openConsole(t.baseUrl);
    acc = await t.createAccount({ name: 'Dev Co' });
    await b.signIn(acc.key);
  });
  afterAll(async () => {
    await b?.close();
    await receiver?.close();
    await t?.close();
  });
  afterEach(() => {
    expect(b.outside).toEqual([]);
    expect(b.pageErrors).toEqual([]);
    expect(b.contractProblems).toEqual([]);
  });

  it('creates a member key with the chosen permissions (shown once), which works from outside with exactly those; revoking it ends it', async () => {
    await b.open('/developers');
    const form = b.page.getByRole('form', { name: 'Create an API key' });
    await form.getByLabel('Key name', { exact: true }).fill('Reporting');
    await form.getByRole('checkbox', { name: /^messages:create/ }).uncheck();
    await form.getByRole('checkbox', { name: /^messages:read/ }).check();
    await form.getByRole('button', { name: 'Create member key' }).click();
    const key = await b.page.getByRole('textbox', { name: 'New API key' }).inputValue();
    const table = b.page.getByRole('region', { name: 'API keys' });
    await table.getByText('Reporting').waitFor();
    await b.shoot('developers-keys');

    // The test uses the key with the permissions chosen in the page.
    await t.http().get('/api/v2/messages').set('X-API-Key', key).expect(200);
    const denied = await t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', key)
      .send({ to: '+966500000001', channel: 'local_sms', messageType: 'free_text', content: { text: 'x' } })
      .expect(403);
    expect(denied.body.code).toBe('FORBIDDEN');
    const listed = await t.http().get('/api/v2/api-keys').set('X-API-Key', acc.key).expect(200);
    expect(listed.body.data.apiKeys).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          name: 'Reporting',
          role: 'member',
          permissions: ['messages:read'],
          prefix: key.slice(0, 12),
        }),
      ]),
    );
    expect(JSON.stringify(listed.body)).not.toContain(key);

    await b.page.getByRole('button', { name: 'Done' }).click();
    // The signed-in owner key cannot be revoked from its own session.
    expect(
      await table
        .getByRole('row')
        .filter({ hasText: '(this session)' })
        .getByRole('button', { name: /^Revoke/ })
        .isDisabled(),
    ).toBe(true);
    await b.page.getByRole('button', { name: 'Revoke Reporting' }).click();
    await table.getByText('Reporting').waitFor({ state: 'detached' });
    expect((await t.http().get('/api/v2/messages').set('X-API-Key', key).expect(401)).body.code).toBe('UNAUTHORIZED');
  });

  it('sets the web-session webhook to a local receiver, shows the key once, sends a test event and shows it delivered', async () => {
    await b.open('/developers');
    await b.page.getByLabel('Webhook URL', { exact: true }).fill(receiver.url);
    await b.page.getByRole('button', { name: 'Set webhook' }).click();
    const fullKey = await b.page.getByRole('textbox', { name: 'Webhook key' }).inputValue();
    expect(fullKey).toMatch(/^whk_[A-Za-z0-9_-]{32}$/);
    await expect(b.page.getByTestId('webhook-key').textContent()).resolves.toBe(`whk_****${fullKey.slice(-4)}`);
    const stored = await t.http().get('/api/v2/webhooks/chatapp-web').set('X-API-Key', acc.key).expect(200);
    expect(stored.body.data.url).toBe(receiver.url);

    await b.page.getByRole('button', { name: 'Send test event' }).click();
    const result = b.page.getByTestId('test-delivery');
    await result.getByText('delivered').waitFor();
    await expect(result.textContent()).resolves.toMatch(/after 1 attempt \(last answer HTTP 200\)/);
    const call = await waitFor(async () => receiver.calls[0], { what: 'test event at the receiver' });
    expect(call.headers['x-api-key']).toBe(fullKey);
    expect(call.headers['x-service-event']).toBe('webhook.test');
    const deliveryId = (await result.locator('code').first().textContent())!;
    expect(call.headers['x-service-delivery-id']).toBe(deliveryId);
    // The delivery log below lists it as delivered too.
    await b.page.getByRole('region', { name: 'Webhook deliveries' }).getByText('webhook.test').waitFor();
    await b.shoot('developers', [WIDE, NARROW]);
    await b.page.getByRole('button', { name: 'Done' }).click();
    await b.page.getByRole('textbox', { name: 'Webhook key' }).waitFor({ state: 'detached' });
  });

  it('rotating the key shows the new one once; the old one stops being sent', async () => {
    await b.page.getByRole('button', { name: 'Rotate key' }).click();
    const box = b.page.getByRole('textbox', { name: 'Webhook key' });
    await box.waitFor();
    const newKey = await box.inputValue();
    const first = receiver.calls[0].headers['x-api-key'];
    expect(newKey).not.toBe(first);
    await b.page.getByRole('button', { name: 'Done' }).click();
    await expect(b.page.getByTestId('webhook-key').textContent()).resolves.toBe(`whk_****${newKey.slice(-4)}`);
    await b.page.getByRole('button', { name: 'Send test event' }).click();
    const call = await waitFor(async () => receiver.calls[1], { what: 'second test event' });
    expect(call.headers['x-api-key']).toBe(newKey);
    await b.page.getByTestId('test-delivery').getByText('delivered').waitFor();
  });
});
