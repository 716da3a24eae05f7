import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, TestAccount, TestApp, waitFor } from '../support/app';
import { ConsoleBrowser, openConsole } from '../support/console-browser';

// A self-hosted service is often opened as http://<LAN host>:3000/console: not a secure context, so
// browser APIs reserved to HTTPS (crypto.randomUUID, navigator.clipboard) are missing there.
describe('Console over plain HTTP on a non-loopback host name (real browser)', () => {
  let t: TestApp;
  let b: ConsoleBrowser;
  let acc: TestAccount;
  let dir: string;

  beforeAll(async () => {
    t = await createTestApp();
    b = await openConsole(t.baseUrl, { hostName: 'console.lan.test' });
    acc = await t.createAccount({ name: 'Plain Co' });
    dir = mkdtempSync(join(tmpdir(), 'console-plain-'));
    await b.signIn(acc.key);
  });
  afterAll(async () => {
    await b?.close();
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  afterEach(() => {
    expect(b.outside).toEqual([]);
    // Chromium reports that it ignores the Cross-Origin-Opener-Policy header on plain HTTP (kept for HTTPS).
    expect(b.pageErrors.filter((e) => !/^The Cross-Origin-Opener-Policy header has been ignored/.test(e))).toEqual([]);
    expect(b.contractProblems).toEqual([]);
  });

  it('a bulk job from a CSV file: dry run and create work without crypto.randomUUID', async () => {
    expect(await b.page.evaluate<boolean>('window.isSecureContext')).toBe(false);
    expect(new URL(b.page.url()).hostname).toBe('console.lan.test');
    await b.open('/bulk/new');
    const csv = join(dir, 'lan.csv');
    writeFileSync(csv, 'to,channel,text\n+966552000011,local_sms,hello\n+966552000012,local_sms,again\n');
    await b.page.getByLabel('CSV file', { exact: true }).setInputFiles(csv);
    await b.page.getByTestId('dry-run').getByText('2 of 2 rows valid, 0 invalid').waitFor();
    await b.page.getByRole('button', { name: 'Create job (2 messages)' }).click();
    await b.page.waitForURL(/\/console\/bulk\/(?!new$)[^/]+$/);
    const jobId = decodeURIComponent(new URL(b.page.url()).pathname.split('/').pop()!);
    const stored = await t.http().get(`/api/v2/messages/bulk/${jobId}`).set('X-API-Key', acc.key).expect(200);
    expect(stored.body.job).toMatchObject({ name: 'lan', total: 2 });
  });

  it('a new key shown once: Copy without the clipboard API leaves the key selected, no page error', async () => {
    await b.open('/developers');
    const form = b.page.getByRole('form', { name: 'Create an API key' });
    await form.getByLabel('Key name', { exact: true }).fill('LAN');
    await form.getByRole('button', { name: 'Create member key' }).click();
    const box = b.page.getByRole('textbox', { name: 'New API key' });
    const key = await box.inputValue();
    await b.page.getByRole('button', { name: 'Copy', exact: true }).click();
    // Without the clipboard API the field is selected for Ctrl+C instead, and the page says so.
    await b.page.getByText('Selected: press Ctrl+C (Cmd+C) to copy.').waitFor();
    const selected = `document.activeElement.value === ${JSON.stringify(key)} && document.activeElement.selectionEnd - document.activeElement.selectionStart === ${key.length}`;
    await waitFor(async () => b.page.evaluate<boolean>(selected), { what: 'the key selected' });
    await t.http().get('/api/v2/messages').set('X-API-Key', key).expect(200);
  });
});
