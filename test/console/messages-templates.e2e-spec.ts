import { createTestApp, TestAccount, TestApp } from '../support/app';
import { ConsoleBrowser, NARROW, openConsole, WIDE } from '../support/console-browser';
import { png } from '../support/media-fixtures';
import { RECEIPT_INTAKE, ReceiptIntake } from '../../src/providers/provider-events';

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

describe('Console: messages and templates (real browser)', () => {
  let t: TestApp;
  let b: ConsoleBrowser;
  let acc: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    b = await openConsole(t.baseUrl);
    acc = await t.createAccount({ name: 'Log Co' });
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

  const send = (body: Record<string, unknown>) =>
    t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send({ channel: 'local_sms', messageType: 'free_text', content: { text: 'Hello' }, ...body })
      .expect(201);

  it('the log pages with the API cursor (50 a page) and filters by status', async () => {
    await send({ to: Array.from({ length: 55 }, (_, i) => `+9665510000${String(i).padStart(2, '0')}`) });
    await b.open('/messages');
    const table = b.page.getByRole('region', { name: 'Messages' });
    await table.locator('tbody tr').nth(49).waitFor();
    expect(await table.locator('tbody tr').count()).toBe(50);
    await b.shoot('messages', [WIDE, NARROW]);
    await b.page.getByRole('button', { name: 'Next' }).click();
    await b.page.getByText('Page 2').waitFor();
    await table.locator('tbody tr').nth(5).waitFor({ state: 'detached' });
    expect(await table.locator('tbody tr').count()).toBe(5);
    await b.page.getByRole('button', { name: 'Previous' }).click();
    await table.locator('tbody tr').nth(49).waitFor();

    await send({ to: '+966551234567', scheduleAt: inAnHour() });
    await b.page.getByLabel('Status', { exact: true }).selectOption('scheduled');
    await b.page.getByRole('button', { name: 'Apply filters' }).click();
    await b.page.waitForURL(/\/console\/messages\?status=scheduled$/);
    await table.locator('tbody tr').nth(1).waitFor({ state: 'detached' });
    await table.locator('tbody tr').first().getByText('scheduled').waitFor();
    expect(await table.locator('tbody tr').count()).toBe(1);
  });

  it('a message detail shows its timeline; a scheduled one is cancelled from there and refunded', async () => {
    const before = (await t.http().get('/api/v2/account').set('X-API-Key', acc.key).expect(200)).body.data
      .walletBalance as number;
    const scheduled = (await send({ to: '+966551234568', scheduleAt: inAnHour() })).body.data;
    const id = (scheduled.messages?.[0]?.id ?? scheduled.id) as string;
    await b.open(`/messages/${id}`);
    const timeline = b.page.getByRole('list', { name: 'Status timeline' });
    await timeline.getByText('scheduled for').waitFor();
    // What the message is for, as the API says.
    const purpose = b.page.locator('dt', { hasText: 'Purpose' }).locator('xpath=following-sibling::dd');
    expect(await purpose.textContent()).toBe('transactional');
    await b.shoot('message-detail', [WIDE, NARROW]);
    await b.page.getByRole('button', { name: 'Cancel scheduled message' }).click();
    await timeline.getByText('cancelled (refunded)').waitFor();
    const stored = await t.http().get(`/api/v2/messages/${id}`).set('X-API-Key', acc.key).expect(200);
    expect(stored.body.data).toMatchObject({ status: 'cancelled', cost: 0 });
    const after = (await t.http().get('/api/v2/account').set('X-API-Key', acc.key).expect(200)).body.data
      .walletBalance as number;
    expect(after).toBe(before);
  });

  it("the timeline shows each status the message reached, receipts with the provider's word", async () => {
    const sent = (await send({ to: '+966551234569' })).body.data.messages[0];
    const at = Date.now();
    await t.app.get<ReceiptIntake>(RECEIPT_INTAKE).accept([
      {
        providerMessageId: `sbx_${sent.id}`,
        status: 'delivered',
        providerStatus: 'DELIVRD',
        errorCode: null,
        providerErrorCode: null,
        at,
      },
    ]);
    await b.open(`/messages/${sent.id}`);
    const timeline = b.page.getByRole('list', { name: 'Status timeline' });
    await timeline.getByText('delivered', { exact: true }).waitFor();
    await timeline.getByText('receipt DELIVRD').waitFor();
    expect(await timeline.locator('li strong').allTextContents()).toEqual(['created', 'queued', 'sent', 'delivered']);
    await b.page.getByText('GSM-7; each part is billed').waitFor();
    await b.shoot('message-detail-delivered');
  });

  it('creates an SMS template and an official chat-app template with an uploaded image header', async () => {
    await b.open('/templates');
    const form = b.page.getByRole('form', { name: 'Create a template' });
    await form.getByLabel('Name (lowercase letters and _)').fill('shipping_note');
    await form.getByLabel('Text', { exact: true }).fill('Your order has shipped');
    await form.getByRole('button', { name: 'Create template' }).click();
    await form.getByRole('status').getByText('shipping_note').waitFor();
    await b.page.getByRole('region', { name: 'Templates' }).getByText('shipping_note').waitFor();

    await form.getByLabel('Category').selectOption('chatapp');
    await form.getByLabel('Name (lowercase letters and _)').fill('promo_banner');
    await form.getByLabel('Body (placeholders {{1}}, {{2}}...)').fill('Hi {{1}}, new arrivals are in');
    await form.getByLabel('Example values, in order, separated by |').fill('Sara');
    await form.getByLabel('Header', { exact: true }).selectOption('image');
    await form
      .getByLabel('Header file')
      .setInputFiles({ name: 'banner.png', mimeType: 'image/png', buffer: png(4096) });
    await form.getByRole('button', { name: 'Create template' }).click();
    await form.getByRole('status').getByText('promo_banner').waitFor();
    const assetId = (await form.getByTestId('header-asset').locator('code').textContent())!;
    await b.page.getByRole('img', { name: 'Header of promo_banner' }).waitFor();
    await b.shoot('templates', [WIDE, NARROW]);

    const list = await t.http().get('/api/v2/templates?name=promo_banner').set('X-API-Key', acc.key).expect(200);
    expect(list.body.data.templates).toEqual([
      expect.objectContaining({
        name: 'promo_banner',
        category: 'chatapp',
        headerType: 'image',
        headerAssetId: assetId,
        status: 'pending',
      }),
    ]);
    expect(list.body.data.templates[0].bodyParameters).toEqual([{ index: 1, label: 'Sara' }]);
  });
});
