import { Webhook } from 'standardwebhooks';
import { createTestApp, TestAccount, TestApp, waitFor } from '../support/app';
import { ConsoleBrowser, NARROW, openConsole, WIDE } from '../support/console-browser';
import { ReceivedCall, startReceiver, WebhookReceiver } from '../support/webhook-receiver';

const headersOf = (c: ReceivedCall): Record<string, string> => ({
  'webhook-id': String(c.headers['webhook-id']),
  'webhook-timestamp': String(c.headers['webhook-timestamp']),
  'webhook-signature': String(c.headers['webhook-signature']),
});

describe('Console: event endpoints and the delivery log (real browser)', () => {
  let t: TestApp;
  let b: ConsoleBrowser;
  let acc: TestAccount;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    // testEnv sets WEBHOOK_ALLOW_INSECURE: a plain-HTTP receiver on 127.0.0.1 is allowed in tests only.
    t = await createTestApp({ env: { WEBHOOK_DELIVERY_INTERVAL_MS: '20' } });
    receiver = await startReceiver();
    b = await openConsole(t.baseUrl);
    acc = await t.createAccount({ name: 'Events Co' });
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

  const api = (path: string) => t.http().get(path).set('X-API-Key', acc.key).expect(200);

  it('creates an endpoint (secret shown once), sends a test event the receiver verifies, filters the log, redelivers, rotates, disables and deletes', async () => {
    await b.open('/developers');
    const form = b.page.getByRole('form', { name: 'Create an event endpoint' });
    await form.getByLabel('Endpoint URL', { exact: true }).fill(receiver.url);
    await form.getByLabel('Description', { exact: true }).fill('Order system');
    await form.getByRole('checkbox', { name: 'webhook.test' }).check();
    await form.getByLabel(/^Or patterns/).fill('message.*');
    await form.getByRole('button', { name: 'Create endpoint' }).click();
    const secret = await b.page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const table = b.page.getByRole('region', { name: 'Event endpoints' });
    await table.getByText('Order system').waitFor();
    const [stored] = (await api('/api/v2/webhooks/endpoints')).body.data.endpoints;
    expect(stored).toMatchObject({
      url: receiver.url,
      events: ['webhook.test', 'message.*'],
      description: 'Order system',
      status: 'enabled',
    });
    expect(JSON.stringify(stored)).not.toContain(secret);
    await b.page.getByRole('button', { name: 'Done' }).click();
    await b.page.getByRole('textbox', { name: 'Signing secret' }).waitFor({ state: 'detached' });

    // Send test: the receiver verifies the signature with the secret the page showed.
    const actions = table.getByRole('group', { name: `Actions for ${receiver.url}` });
    await actions.getByRole('button', { name: 'Send test' }).click();
    await b.page.getByText(/^Test event for .* queued \(delivery whd_/).waitFor();
    const first = await waitFor(
      async () => receiver.calls.find((c) => (c.body as { type?: string } | null)?.type === 'webhook.test'),
      { what: 'test event received' },
    );
    expect(new Webhook(secret).verify(first.raw, headersOf(first))).toMatchObject({
      type: 'webhook.test',
      data: { endpointId: stored.id },
    });

    // The log, filtered by endpoint and event, shows it delivered; redeliver sends it again with the same webhook-id.
    await b.page.getByLabel('Endpoint', { exact: true }).selectOption({ label: 'Order system' });
    await b.page.getByLabel('Event', { exact: true }).selectOption('webhook.test');
    const log = b.page.getByRole('region', { name: 'Webhook deliveries' });
    await waitFor(
      async () => {
        await b.page.getByRole('group', { name: 'Delivery filters' }).getByRole('button', { name: 'Refresh' }).click();
        return (await log.getByText('delivered', { exact: true }).count()) > 0;
      },
      { what: 'delivered row in the log', intervalMs: 300 },
    );
    expect(await log.locator('tbody tr').count()).toBe(1);
    await b.shoot('developers-endpoints', [WIDE, NARROW]);
    await log.getByRole('button', { name: /^Redeliver webhook\.test/ }).click();
    const again = await waitFor(
      async () => receiver.calls.filter((c) => (c.body as { type?: string } | null)?.type === 'webhook.test')[1],
      { what: 'redelivered' },
    );
    expect(again.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(new Webhook(secret).verify(again.raw, headersOf(again))).toBeTruthy();

    // Rotate: a new secret, shown once; the stored endpoint still never shows it.
    await actions.getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = await b.page.getByRole('textbox', { name: `New signing secret of ${receiver.url}` }).inputValue();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await b.page.getByRole('button', { name: 'Done' }).click();

    // Disable, then delete.
    await actions.getByRole('button', { name: 'Disable' }).click();
    await table.getByText('disabled', { exact: true }).waitFor();
    expect((await api(`/api/v2/webhooks/endpoints/${stored.id}`)).body.data.endpoint.status).toBe('disabled');
    expect(await actions.getByRole('button', { name: 'Send test' }).isDisabled()).toBe(true);
    await actions.getByRole('button', { name: 'Enable' }).waitFor();
    await actions.getByRole('button', { name: 'Delete' }).click();
    await b.page.getByText('No event endpoints.').waitFor();
    expect((await api('/api/v2/webhooks/endpoints')).body.data.endpoints).toEqual([]);
  });

  it('an invalid endpoint shows the API error with its code', async () => {
    await b.open('/developers');
    const form = b.page.getByRole('form', { name: 'Create an event endpoint' });
    await form.getByLabel('Endpoint URL', { exact: true }).fill(receiver.url);
    await form.getByLabel(/^Or patterns/).fill('nope.*');
    await form.getByRole('button', { name: 'Create endpoint' }).click();
    await form.getByRole('alert').filter({ hasText: 'VALIDATION_ERROR' }).waitFor();
    expect((await api('/api/v2/webhooks/endpoints')).body.data.endpoints).toEqual([]);
  });
});
