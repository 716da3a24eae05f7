import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, TestAccount, TestApp } from '../support/app';
import { ConsoleBrowser, NARROW, openConsole, WIDE } from '../support/console-browser';

describe('Console: suppression list (real browser)', () => {
  let t: TestApp;
  let b: ConsoleBrowser;
  let acc: TestAccount;
  const dir = mkdtempSync(join(tmpdir(), 'console-suppressions-'));

  beforeAll(async () => {
    t = await createTestApp();
    b = await openConsole(t.baseUrl);
    acc = await t.createAccount({ name: 'Opt-out Co' });
    await b.signIn(acc.key);
  });
  afterAll(async () => {
    await b?.close();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  afterEach(() => {
    expect(b.outside).toEqual([]);
    expect(b.pageErrors).toEqual([]);
    expect(b.contractProblems).toEqual([]);
  });

  const table = () => b.page.getByRole('region', { name: 'Suppressed recipients' });

  it('adds a recipient, lists it, removes it', async () => {
    await b.page.getByRole('link', { name: 'Suppressions' }).click();
    await b.page.getByText('No suppressed recipients.').waitFor();
    const form = b.page.getByRole('form', { name: 'Add a recipient' });
    await form.getByLabel('Recipient (phone or email)').fill('0501240001');
    await form.getByLabel('Channel').selectOption('local_sms');
    await form.getByLabel('Scope').selectOption('all');
    await form.getByRole('button', { name: 'Add to the list' }).click();
    await table().getByText('+966501240001').waitFor();
    const cells = await table().locator('tbody tr').first().locator('td').allTextContents();
    expect(cells.slice(0, 4)).toEqual(['+966501240001', 'local_sms', 'all', 'console']);

    await form.getByLabel('Recipient (phone or email)').fill('not a number');
    await form.getByRole('button', { name: 'Add to the list' }).click();
    await form.getByRole('alert').getByText('VALIDATION_ERROR').waitFor();

    await table().getByRole('button', { name: 'Remove +966501240001 (local_sms)' }).click();
    await b.page.getByText('No suppressed recipients.').waitFor();
    const listed = await t.http().get('/api/v2/suppressions').set('X-API-Key', acc.key);
    expect(listed.body.data.suppressions).toEqual([]);
  });

  it('imports a CSV file, filters, exports what the filters select; a bad file shows its lines', async () => {
    await b.open('/suppressions');
    const file = b.page.getByLabel('CSV file', { exact: true });
    await file.setInputFiles({
      name: 'opt-outs.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('recipient,channel,scope\n+966501240002,,\nana@example.com,email,all\n'),
    });
    await b.page.getByRole('button', { name: 'Import', exact: true }).click();
    await b.page
      .getByRole('status')
      .getByText('Imported 2 new entries; 0 already on the list (2 rows read).')
      .waitFor();
    await table().getByText('ana@example.com').waitFor();
    expect(await table().locator('tbody tr').count()).toBe(2);
    await b.shoot('suppressions', [WIDE, NARROW]);

    await b.page.getByRole('region', { name: 'Suppression list' }).getByLabel('Channel').selectOption('email');
    await table().getByText('+966501240002').waitFor({ state: 'detached' });
    expect(await table().locator('tbody tr').count()).toBe(1);
    const [download] = await Promise.all([
      b.page.waitForEvent('download'),
      b.page.getByRole('button', { name: 'Export (CSV)' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('suppressions.csv');
    const saved = join(dir, 'export.csv');
    await download.saveAs(saved);
    const lines = readFileSync(saved, 'utf8').trim().split(/\r\n/);
    expect(lines[0]).toBe('recipient,channel,scope,reason,source,createdAt');
    expect(lines.slice(1)).toEqual([expect.stringMatching(/^ana@example\.com,email,all,import,key_/)]);

    await file.setInputFiles({
      name: 'bad.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('recipient\n+966501240003\nnobody\n'),
    });
    await b.page.getByRole('button', { name: 'Import', exact: true }).click();
    await b.page
      .getByRole('alert')
      .getByText(/line 3: recipient must be a phone number/)
      .waitFor();
    const all = await t.http().get('/api/v2/suppressions').set('X-API-Key', acc.key);
    expect(all.body.data.suppressions).toHaveLength(2);
  });

  it('a member key without messages:read is told why the list is not shown', async () => {
    // api_keys:read: the console signs in with GET /account.
    const writer = await t.memberKey(acc.id, ['api_keys:read', 'messages:create']);
    await b.page.getByRole('button', { name: 'Sign out' }).click();
    await b.signIn(writer);
    await b.open('/suppressions');
    await b.page
      .getByText('This API key cannot read the suppression list: it needs the messages:read permission.')
      .waitFor();
    expect(await table().count()).toBe(0);
    await b.page.getByRole('button', { name: 'Sign out' }).click();
  });
});
