import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProviderReceipt, RECEIPT_INTAKE, ReceiptIntake } from '../../src/providers/provider-events';
import { BULK_TEST_ENV_PATIENT, ds, post, sms } from '../support/bulk-helpers';
import { createTestApp, TestAccount, TestApp, waitFor } from '../support/app';
import { ConsoleBrowser, NARROW, openConsole, WIDE } from '../support/console-browser';

// Six rows at 1 a second: about six seconds of sending, so the page (the job's event stream) sees the
// job running first even on a loaded machine.
const GOOD_CSV = [
  'to,channel,text,subject',
  '+966552000001,local_sms,"Your order 1042 has shipped, thanks",',
  'ana@example.com,email,Your invoice is ready,Invoice 1042',
  ...[2, 3, 4, 5].map((i) => `+96655200000${i},local_sms,Row ${i},`),
].join('\n');
const BAD_CSV = 'to,channel,text\n+966552000003,local_sms,fine\n12,local_sms,not a phone\n';

describe('Console: bulk job from a CSV file (real browser)', () => {
  let t: TestApp;
  let b: ConsoleBrowser;
  let acc: TestAccount;
  let dir: string;

  beforeAll(async () => {
    t = await createTestApp({ env: BULK_TEST_ENV_PATIENT });
    b = await openConsole(t.baseUrl);
    acc = await t.createAccount({ name: 'Bulk Co' });
    dir = mkdtempSync(join(tmpdir(), 'console-csv-'));
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

  const upload = async (name: string, csv: string) => {
    const path = join(dir, name);
    writeFileSync(path, csv);
    await b.page.getByLabel('CSV file', { exact: true }).setInputFiles(path);
  };

  it('a file with an invalid row: the dry run names the row and its code, and nothing can be created', async () => {
    await b.open('/bulk/new');
    await upload('bad.csv', BAD_CSV);
    const dry = b.page.getByTestId('dry-run');
    await dry.getByText('1 of 2 rows valid, 1 invalid').waitFor();
    await expect(dry.textContent()).resolves.toMatch(/Row 2: INVALID_RECIPIENT/);
    expect(await b.page.getByRole('button', { name: /^Create job/ }).isDisabled()).toBe(true);
    const jobs = await t.http().get('/api/v2/messages/bulk').set('X-API-Key', acc.key).expect(200);
    expect(jobs.body.data.jobs).toEqual([]);
  });

  it('uploads a CSV, previews it with a dry run, creates the job and watches it reach completed', async () => {
    const jobRequests: string[] = [];
    b.page.on('request', (r) => {
      const path = new URL(r.url()).pathname;
      if (path.startsWith('/api/v2/messages/bulk/')) jobRequests.push(path);
    });
    await b.open('/bulk/new');
    await upload('november.csv', GOOD_CSV);
    const preview = b.page.getByRole('region', { name: 'CSV preview' });
    await preview.getByText('ana@example.com').waitFor();
    expect(await preview.locator('tbody tr').count()).toBe(6);
    await b.page.getByTestId('dry-run').getByText('6 of 6 rows valid, 0 invalid').waitFor();
    await expect(b.page.getByTestId('dry-run').textContent()).resolves.toMatch(
      /Channels: email 1, local_sms 5\. Estimated cost: 0 free, 0 from the plan, \d+\.\d\d SAR from the wallet; about 2 s to send/,
    );
    await b.shoot('bulk-new', [WIDE, NARROW]);
    // A slower pace is checked again: the estimate follows it.
    await b.page.getByLabel('Messages per second', { exact: true }).fill('1');
    await b.page.getByTestId('dry-run').getByText('about 6 s to send', { exact: false }).waitFor();
    await b.page.getByRole('button', { name: 'Create job (6 messages)' }).click();

    await b.page.waitForURL(/\/console\/bulk\/(?!new$)[^/]+$/);
    const jobId = decodeURIComponent(new URL(b.page.url()).pathname.split('/').pop()!);
    // Live progress: the job's event stream (fetch + a body reader, one request), never a poll of the job.
    await b.page.getByTestId('job-status').getByText('running').waitFor();
    await b.shoot('bulk-job-running');
    await b.page.getByTestId('job-status').getByText('completed').waitFor({ timeout: 30_000 });
    await b.page.getByTestId('count-sent').filter({ hasText: /^6$/ }).waitFor();
    const jobUrl = `/api/v2/messages/bulk/${encodeURIComponent(jobId)}`;
    expect(jobRequests.filter((p) => p === `${jobUrl}/events`)).toHaveLength(1);
    expect(jobRequests.filter((p) => p === jobUrl)).toEqual([]);
    await b.page.getByText('Live: updates as the job changes.').waitFor({ state: 'detached' });
    await b.page.getByTestId('count-delivered').filter({ hasText: /^0$/ }).waitFor();
    await b.page.getByRole('region', { name: 'Rows' }).locator('tbody tr').nth(5).waitFor();
    await b.shoot('bulk-job', [WIDE, NARROW]);

    const stored = await t.http().get(`/api/v2/messages/bulk/${jobId}`).set('X-API-Key', acc.key).expect(200);
    expect(stored.body.job).toMatchObject({
      name: 'november',
      status: 'completed',
      total: 6,
      messagesPerSecond: 1,
      counts: { sent: 6, failed: 0, pending: 0, cancelled: 0 },
    });
    const sent = await t.admin('get', `/admin/v1/sandbox/messages?bulkJobId=${jobId}`).expect(200);
    expect(sent.body.data.messages.map((m: { to: string }) => m.to).sort()).toEqual([
      '+966552000001',
      '+966552000002',
      '+966552000003',
      '+966552000004',
      '+966552000005',
      'ana@example.com',
    ]);
    expect(sent.body.data.messages.find((m: { to: string }) => m.to === '+966552000001').text).toBe(
      'Your order 1042 has shipped, thanks',
    );

    // The row report as CSV, downloaded through the API with the key.
    const [download] = await Promise.all([
      b.page.waitForEvent('download'),
      b.page.getByRole('button', { name: 'Export rows (CSV)' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${jobId}-rows.csv`);
    const csv = join(dir, 'export.csv');
    await download.saveAs(csv);
    const lines = readFileSync(csv, 'utf8').trim().split(/\r?\n/);
    expect(lines[0]).toMatch(/^rowIndex,to,channel,status,messageId/);
    expect(lines).toHaveLength(7);

    await b.open('/bulk');
    await b.page.getByRole('region', { name: 'Bulk jobs' }).getByText('november').waitFor();
    await b.shoot('bulk-jobs');
  });

  it('live progress keeps up on a slow link, and delivery receipts show as they arrive', async () => {
    // Four messages at one a second: the job is still sending when the (late) stream starts.
    const created = await post(t, acc.key, {
      name: 'slow link',
      messagesPerSecond: 1,
      messages: [1, 2, 3, 4].map((i) => sms(`+96655300000${i}`)),
    }).expect(202);
    const jobId = created.body.id as string;
    // The event stream reaches the page 1.5 s late (a mobile link).
    const late = `${t.baseUrl}/api/v2/messages/bulk/${encodeURIComponent(jobId)}/events`;
    await b.page.route(
      (url) => url.href === late,
      async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 1500));
        await route.fallback();
      },
    );
    try {
      await b.open(`/bulk/${jobId}`);
      await b.page.getByTestId('job-status').getByText('completed').waitFor({ timeout: 45_000 });
      await b.page.getByTestId('count-sent').filter({ hasText: /^4$/ }).waitFor();
    } finally {
      await b.page.unrouteAll({ behavior: 'ignoreErrors' });
    }
    const stored = await t.http().get(`/api/v2/messages/bulk/${jobId}`).set('X-API-Key', acc.key).expect(200);
    expect(stored.body.job).toMatchObject({ status: 'completed', counts: { sent: 4 } });
    // Receipts after completion, through the lifecycle's intake (as a provider hook hands them over):
    // the job page, opened again, shows them.
    const ids: { provider_message_id: string }[] = await ds(t).query(
      'SELECT provider_message_id FROM messages WHERE bulk_job_id = ? ORDER BY id',
      [jobId],
    );
    const receipt = (i: number, status: ProviderReceipt['status']): ProviderReceipt => ({
      providerMessageId: ids[i].provider_message_id,
      status,
      providerStatus: status,
      errorCode: status === 'failed' ? 'UNDELIVERED' : null,
      providerErrorCode: null,
      at: Date.now(),
    });
    await t.app
      .get<ReceiptIntake>(RECEIPT_INTAKE)
      .accept([receipt(0, 'read'), receipt(1, 'delivered'), receipt(2, 'failed')]);
    await b.open(`/bulk/${jobId}`);
    await b.page.getByTestId('count-delivered').filter({ hasText: /^2$/ }).waitFor();
    await b.page.getByTestId('count-read').filter({ hasText: /^1$/ }).waitFor();
    await b.page.getByTestId('count-undelivered').filter({ hasText: /^1$/ }).waitFor();
    await b.shoot('bulk-job-delivery');
  }, 90_000);

  it('pause, resume and cancel from the job page; retry failed rows (its API error shown first, then the retry)', async () => {
    const rejected = `+96650${String(100 + Math.floor(Math.random() * 899))}0000`; // the sandbox rejects it
    const messages = [
      sms(rejected),
      ...Array.from({ length: 19 }, (_, i) => sms(`+9665541234${String(i).padStart(2, '0')}`)),
    ];
    const id = (await post(t, acc.key, { name: 'controls', messagesPerSecond: 1, messages }).expect(202)).body
      .id as string;
    const job = async () =>
      (await t.http().get(`/api/v2/messages/bulk/${id}`).set('X-API-Key', acc.key).expect(200)).body.job;
    const status = (s: string) =>
      b.page.getByTestId('job-status').getByText(s, { exact: true }).waitFor({ timeout: 30_000 });
    const button = (name: string) =>
      b.page.getByRole('group', { name: 'Job controls' }).getByRole('button', { name, exact: true });

    await b.open(`/bulk/${id}`);
    await status('running');
    await button('Pause').click();
    await status('paused');
    expect(await job()).toMatchObject({ status: 'paused', pauseReason: 'user' });
    await button('Resume').click();
    await b.page
      .getByTestId('job-status')
      .getByText(/^(queued|running)$/)
      .waitFor({ timeout: 30_000 });
    expect(['queued', 'running']).toContain((await job()).status);
    // The rejected first row has failed by now or in the next window; cancel once it shows.
    await b.page.getByTestId('count-failed').filter({ hasText: /^1$/ }).waitFor({ timeout: 30_000 });
    await button('Cancel job').click();
    await status('cancelled');
    // The window already claimed when the cancel came (one row at this pace) still finishes.
    const cancelled = await waitFor(
      async () => {
        const j = await job();
        return j.counts.pending === 0 ? j : null;
      },
      { what: 'claimed window settled' },
    );
    expect(cancelled).toMatchObject({ status: 'cancelled', counts: { failed: 1, pending: 0 } });
    expect(cancelled.counts.cancelled).toBeGreaterThan(0);
    expect(cancelled.counts.sent + cancelled.counts.failed + cancelled.counts.cancelled).toBe(20);
    // ...and the page follows it there instead of stopping at the word `cancelled`.
    await b.page.getByTestId('count-pending').filter({ hasText: /^0$/ }).waitFor();
    await b.page
      .getByTestId('count-sent')
      .filter({ hasText: new RegExp(`^${cancelled.counts.sent}$`) })
      .waitFor();

    // With an empty wallet the retry is refused: the page shows the API's code and text.
    await t.admin('patch', `/admin/v1/accounts/${acc.id}`).send({ walletBalance: 0, freeMessages: 0 }).expect(200);
    await button('Retry failed rows').click();
    const alert = b.page.getByRole('alert').filter({ hasText: 'INSUFFICIENT_BALANCE' });
    await expect(alert.textContent()).resolves.toMatch(/INSUFFICIENT_BALANCE.*cannot pay for one message/);
    await b.shoot('bulk-job-cancelled');
    expect((await job()).counts.failed).toBe(1);
    await t.admin('patch', `/admin/v1/accounts/${acc.id}`).send({ walletBalance: 100_000 }).expect(200);
    const before = (
      await t.http().get(`/api/v2/messages/bulk/${id}/rows?status=failed`).set('X-API-Key', acc.key).expect(200)
    ).body.data.rows[0];
    await button('Retry failed rows').click();
    // Retried: the row is sent again (a new message, rejected again) and the job settles once more.
    await status('completed');
    const after = (
      await t.http().get(`/api/v2/messages/bulk/${id}/rows?status=failed`).set('X-API-Key', acc.key).expect(200)
    ).body.data.rows[0];
    expect(after).toMatchObject({ index: 0, status: 'failed' });
    expect(after.messageId).not.toBe(before.messageId);
    expect(await job()).toMatchObject({
      status: 'completed',
      counts: { failed: 1, cancelled: cancelled.counts.cancelled },
    });
  }, 120_000);
});
