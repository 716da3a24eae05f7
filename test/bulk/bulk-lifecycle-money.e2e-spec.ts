import { createTestApp, TestApp, waitFor } from '../support/app';
import {
  deliveries,
  getJob,
  LIFECYCLE_TEST_ENV,
  post,
  rejectedPhone,
  rowsReport,
  sms,
  waitStatus,
} from '../support/bulk-helpers';

describe('Bulk lifecycle (e2e): retry and money', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: LIFECYCLE_TEST_ENV });
  });
  afterAll(async () => {
    await t.close();
  });

  const rows = rowsReport(() => t);

  it('retry-failed: 200 retried + queued job, 409 NOTHING_TO_RETRY, 402 INSUFFICIENT_BALANCE leaving rows failed', async () => {
    const acc = await t.createAccount();
    const msgs = [sms(), sms(rejectedPhone()), sms(), sms(rejectedPhone())];
    const res = await post(t, acc.key, { messagesPerSecond: 10, messages: msgs });
    const id = res.body.id;
    const done = await waitStatus(t, acc.key, id, ['completed']);
    expect(done.counts).toEqual({ pending: 0, sent: 2, failed: 2, cancelled: 0 });
    const failedRows = await rows(acc.key, id, '?status=failed');
    expect(failedRows.rows.map((r: { index: number; errorCode: string }) => [r.index, r.errorCode])).toEqual([
      [1, 'PROVIDER_REJECTED'],
      [3, 'PROVIDER_REJECTED'],
    ]);

    await t.admin('patch', `/admin/v1/accounts/${acc.id}`).send({ walletBalance: 0 });
    const poor = await t.http().post(`/api/v2/messages/bulk/${id}/retry-failed`).set('X-API-Key', acc.key);
    expect([poor.status, poor.body.code]).toEqual([402, 'INSUFFICIENT_BALANCE']);
    expect((await getJob(t, acc.key, id)).counts.failed).toBe(2);
    expect((await rows(acc.key, id, '?status=failed')).rows).toHaveLength(2);

    await t.admin('patch', `/admin/v1/accounts/${acc.id}`).send({ walletBalance: 1000 });
    const ok = await t.http().post(`/api/v2/messages/bulk/${id}/retry-failed`).set('X-API-Key', acc.key);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      success: true,
      retried: 2,
      job: { id, status: 'queued', counts: { pending: 2, sent: 2, failed: 0, cancelled: 0 } },
    });
    const again = await waitStatus(t, acc.key, id, ['completed']);
    expect(again.counts).toEqual({ pending: 0, sent: 2, failed: 2, cancelled: 0 });
    const none = await t.http().post(`/api/v2/messages/bulk/${id}/retry-failed`).set('X-API-Key', acc.key);
    expect(none.status).toBe(200);

    const clean = await post(t, acc.key, { messagesPerSecond: 10, messages: [sms()] });
    await waitStatus(t, acc.key, clean.body.id, ['completed']);
    const nothing = await t
      .http()
      .post(`/api/v2/messages/bulk/${clean.body.id}/retry-failed`)
      .set('X-API-Key', acc.key);
    expect([nothing.status, nothing.body.code]).toEqual([409, 'NOTHING_TO_RETRY']);
    const missing = await t.http().post('/api/v2/messages/bulk/bulk_missing/retry-failed').set('X-API-Key', acc.key);
    expect([missing.status, missing.body.code]).toEqual([404, 'JOB_NOT_FOUND']);
    const reader = await t.memberKey(acc.id, ['messages:read']);
    const forbidden = await t.http().post(`/api/v2/messages/bulk/${id}/retry-failed`).set('X-API-Key', reader);
    expect([forbidden.status, forbidden.body.code]).toEqual([403, 'FORBIDDEN']);
  });

  it('money running out pauses with insufficient_balance; resume is 402 until topped up, then completes', async () => {
    const acc = await t.createAccount({ walletBalance: 10 });
    const res = await post(t, acc.key, { messagesPerSecond: 10, messages: Array.from({ length: 5 }, () => sms()) });
    const id = res.body.id;
    const paused = await waitStatus(t, acc.key, id, ['paused']);
    expect(paused).toMatchObject({
      pauseReason: 'insufficient_balance',
      counts: { pending: 3, sent: 2, failed: 0, cancelled: 0 },
    });
    const poor = await t.http().post(`/api/v2/messages/bulk/${id}/resume`).set('X-API-Key', acc.key);
    expect([poor.status, poor.body.code]).toEqual([402, 'INSUFFICIENT_BALANCE']);
    await t.admin('patch', `/admin/v1/accounts/${acc.id}`).send({ walletBalance: 1000 });
    const ok = await t.http().post(`/api/v2/messages/bulk/${id}/resume`).set('X-API-Key', acc.key);
    expect(ok.status).toBe(200);
    const done = await waitStatus(t, acc.key, id, ['completed']);
    expect(done.counts).toEqual({ pending: 0, sent: 5, failed: 0, cancelled: 0 });
    expect(await deliveries(t, id)).toHaveLength(5);
  });

  /**
   * One window of six rows cut short: the provider fails the third (an email, 503) and the wallet pays
   * exactly five messages (4 SMS at 5 + 1 email at 1), so the sixth is unpaid and the job pauses for
   * money after this window, where its state can be read.
   */
  const windowCutShort = async () => {
    const acc = await t.createAccount({ walletBalance: 21, freeMessages: 0 });
    const email = {
      to: 'ana@example.org',
      channel: 'email',
      messageType: 'free_text',
      content: { subject: 'Hi', text: 'x' },
    };
    await t
      .admin('post', '/admin/v1/sandbox/faults')
      .send({ kind: 'unavailable', channel: 'email', count: 1, accountId: acc.id })
      .expect(201);
    const res = await post(t, acc.key, { messagesPerSecond: 10, messages: [sms(), sms(), email, sms(), sms(), sms()] });
    const id: string = res.body.id;
    const paused = await waitStatus(t, acc.key, id, ['paused', 'completed']);
    expect(paused).toMatchObject({
      status: 'paused',
      pauseReason: 'insufficient_balance',
      counts: { pending: 3, sent: 2, failed: 1, cancelled: 0 },
    });
    /** The job's messages as [row, status, cost, errorCode], and the wallet, as the API shows them. */
    const messages = async () =>
      (
        (await t.http().get(`/api/v2/messages?bulkJobId=${id}`).set('X-API-Key', acc.key)).body.data.messages as {
          rowIndex: number;
          status: string;
          cost: number;
          errorCode: string | null;
        }[]
      )
        .sort((a, b) => a.rowIndex - b.rowIndex)
        .map((m) => [m.rowIndex, m.status, m.cost, m.errorCode]);
    const wallet = async () =>
      (await t.http().get('/api/v2/account').set('X-API-Key', acc.key)).body.data.walletBalance as number;
    return { acc, id, messages, wallet };
  };

  it('a provider error in the middle of a window fails only its row; the later rows stay paid once, never failed, and the next window sends them without a second charge', async () => {
    const { acc, id, messages, wallet } = await windowCutShort();
    // Rows 3 and 4 were paid in the window and never tried: queued, paid once, not failed nor refunded.
    expect(await messages()).toEqual([
      [0, 'sent', 5, null],
      [1, 'sent', 5, null],
      [2, 'failed', 0, 'PROVIDER_UNAVAILABLE'],
      [3, 'queued', 5, null],
      [4, 'queued', 5, null],
    ]);
    expect(await wallet()).toBe(1);
    const report = (await rows(acc.key, id)).rows.map(
      (r: { index: number; status: string; errorCode: string | null }) => [r.index, r.status, r.errorCode],
    );
    expect(report).toEqual([
      [0, 'sent', null],
      [1, 'sent', null],
      [2, 'failed', 'PROVIDER_UNAVAILABLE'],
      [3, 'pending', null],
      [4, 'pending', null],
      [5, 'pending', null],
    ]);
    expect((await deliveries(t, id)).map((d) => d.rowIndex)).toEqual([0, 1]);

    // Enough for the one unpaid row: rows 3 and 4 go out as paid, row 5 is paid now.
    await t.admin('patch', `/admin/v1/accounts/${acc.id}`).send({ walletBalance: 5 }).expect(200);
    expect((await t.http().post(`/api/v2/messages/bulk/${id}/resume`).set('X-API-Key', acc.key)).status).toBe(200);
    const done = await waitStatus(t, acc.key, id, ['completed']);
    expect(done.counts).toEqual({ pending: 0, sent: 5, failed: 1, cancelled: 0 });
    expect(await messages()).toEqual([
      [0, 'sent', 5, null],
      [1, 'sent', 5, null],
      [2, 'failed', 0, 'PROVIDER_UNAVAILABLE'],
      [3, 'sent', 5, null],
      [4, 'sent', 5, null],
      [5, 'sent', 5, null],
    ]);
    expect(await wallet()).toBe(0);
    const sent = await deliveries(t, id);
    expect(sent.map((d) => d.rowIndex).sort()).toEqual([0, 1, 3, 4, 5]);
    expect(new Set(sent.map((d) => d.messageId)).size).toBe(5);
  });

  it('a job cancelled while paid rows of a cut-short window wait: the reaper refunds those messages once, nothing is sent', async () => {
    const { acc, id, messages, wallet } = await windowCutShort();
    const cancel = await t.http().post(`/api/v2/messages/bulk/${id}/cancel`).set('X-API-Key', acc.key);
    expect(cancel.status).toBe(200);
    // The unpaid row is cancelled at once; the two paid ones are settled from the message log.
    expect(cancel.body.job).toMatchObject({
      status: 'cancelled',
      counts: { pending: 2, sent: 2, failed: 1, cancelled: 1 },
    });
    const job = await waitFor(
      async () => {
        const j = await getJob(t, acc.key, id);
        return j.counts.pending === 0 ? j : null;
      },
      { what: 'paid rows settled by the reaper' },
    );
    expect(job.counts).toEqual({ pending: 0, sent: 2, failed: 1, cancelled: 3 });
    expect(await messages()).toEqual([
      [0, 'sent', 5, null],
      [1, 'sent', 5, null],
      [2, 'failed', 0, 'PROVIDER_UNAVAILABLE'],
      [3, 'failed', 0, 'CANCELLED'],
      [4, 'failed', 0, 'CANCELLED'],
    ]);
    // Only the two sent messages stay paid.
    expect(await wallet()).toBe(11);
    expect((await deliveries(t, id)).map((d) => d.rowIndex)).toEqual([0, 1]);
  });
});
