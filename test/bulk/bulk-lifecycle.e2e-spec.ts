import { createTestApp, TestApp, waitFor } from '../support/app';
import {
  deliveries,
  ds,
  getJob,
  LIFECYCLE_TEST_ENV,
  maxInAnySecond,
  post,
  rowsReport,
  sms,
  waitStatus,
} from '../support/bulk-helpers';

// Also: bulk-lifecycle-money.e2e-spec.ts (retry-failed, paying), bulk-lifecycle-recovery.e2e-spec.ts (restart,
// interrupted intake), bulk-lifecycle-paused-jobs.e2e-spec.ts (dispatch past many paused jobs).
describe('Bulk lifecycle (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: LIFECYCLE_TEST_ENV });
  });
  afterAll(async () => {
    await t.close();
  });

  const rows = rowsReport(() => t);

  it('validates, queues and sends every row paced under messagesPerSecond; rows and message log agree', async () => {
    const acc = await t.createAccount();
    const res = await post(t, acc.key, {
      name: 'paced',
      messagesPerSecond: 4,
      messages: Array.from({ length: 14 }, () => sms()),
    });
    expect(res.status).toBe(202);
    const job = await waitStatus(t, acc.key, res.body.id, ['completed'], 30000);
    expect(job).toMatchObject({
      total: 14,
      validatedCount: 14,
      counts: { pending: 0, sent: 14, failed: 0, cancelled: 0 },
      errorCode: null,
    });
    const sent = await deliveries(t, res.body.id);
    expect(sent).toHaveLength(14);
    expect(new Set(sent.map((d) => d.rowIndex)).size).toBe(14);
    const times = sent.map((d) => Date.parse(d.deliveredAt));
    expect(maxInAnySecond(times)).toBeLessThanOrEqual(4);
    // Close to the ceiling: 14 sends at 4/s take about 3 s, not much more.
    expect(Math.max(...times) - Math.min(...times)).toBeLessThan(5000);
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(3000);
    const report = await rows(acc.key, res.body.id, '?status=sent&limit=5');
    expect(report.rows).toHaveLength(5);
    expect(report.rows[0]).toEqual({
      index: 0,
      to: expect.any(String),
      channel: 'local_sms',
      purpose: 'transactional',
      status: 'sent',
      messageId: expect.stringMatching(/^msg_/),
      errorCode: null,
      errorMessage: null,
      sentAt: expect.any(String),
      encoding: 'gsm7',
      segments: 1,
      deliveryStatus: 'sent',
      deliveredAt: null,
      livemode: true,
    });
    expect(report.hasMore).toBe(true);
    const next = await rows(
      acc.key,
      res.body.id,
      `?status=sent&limit=20&cursor=${encodeURIComponent(report.nextCursor)}`,
    );
    expect(next.rows.map((r: { index: number }) => r.index)).toEqual([5, 6, 7, 8, 9, 10, 11, 12, 13]);
    const logged = await ds(t).query("SELECT COUNT(*) AS n FROM messages WHERE bulk_job_id = ? AND status = 'sent'", [
      res.body.id,
    ]);
    expect(Number(logged[0].n)).toBe(14);
    const acct = await t.http().get('/api/v2/account').set('X-API-Key', acc.key);
    expect(JSON.stringify(acct.body)).toContain(String(100_000 - 14 * 5));
  });

  it('GET /api/v2/messages/bulk lists jobs while GET /api/v2/messages/{id} still serves a message', async () => {
    const acc = await t.createAccount();
    const res = await post(t, acc.key, { name: 'routes', messagesPerSecond: 10, messages: [sms()] });
    await waitStatus(t, acc.key, res.body.id, ['completed']);
    const list = await t.http().get('/api/v2/messages/bulk').set('X-API-Key', acc.key);
    expect(list.status).toBe(200);
    expect(list.body.data.jobs.map((j: { id: string }) => j.id)).toEqual([res.body.id]);
    const messageId = (await rows(acc.key, res.body.id)).rows[0].messageId as string;
    const msg = await t.http().get(`/api/v2/messages/${messageId}`).set('X-API-Key', acc.key);
    expect(msg.status).toBe(200);
    expect(JSON.stringify(msg.body)).toContain(messageId);
    expect(JSON.stringify(msg.body)).toContain('"sent"');
  });

  it('one invalid row rejects the job with VALIDATION_FAILED; nothing sent; the report lists every invalid row', async () => {
    const acc = await t.createAccount();
    const msgs = [sms(), { ...sms(), to: 'not-a-phone' }, sms(), { ...sms(), channel: 'pigeon' }, sms()];
    const res = await post(t, acc.key, { messagesPerSecond: 10, messages: msgs });
    const job = await waitStatus(t, acc.key, res.body.id, ['rejected']);
    expect(job.errorCode).toBe('VALIDATION_FAILED');
    expect(job.errorMessage).toContain('messages[1]');
    expect(job.validatedCount).toBe(5);
    expect(job.counts).toEqual({ pending: 0, sent: 0, failed: 0, cancelled: 5 });
    const report = await rows(acc.key, res.body.id, '?status=invalid');
    expect(report.rows.map((r: { index: number }) => r.index)).toEqual([1, 3]);
    expect(report.rows[0]).toMatchObject({
      status: 'invalid',
      errorCode: expect.any(String),
      errorMessage: expect.any(String),
    });
    expect(await deliveries(t, res.body.id)).toEqual([]);
    const r = await t.http().post(`/api/v2/messages/bulk/${res.body.id}/retry-failed`).set('X-API-Key', acc.key);
    expect([r.status, r.body.code]).toEqual([409, 'NOTHING_TO_RETRY']);
  });

  it('an account that cannot pay one message is rejected with INSUFFICIENT_BALANCE', async () => {
    const acc = await t.createAccount({ walletBalance: 0 });
    const res = await post(t, acc.key, { messagesPerSecond: 10, messages: [sms(), sms()] });
    const job = await waitStatus(t, acc.key, res.body.id, ['rejected']);
    expect(job).toMatchObject({ errorCode: 'INSUFFICIENT_BALANCE', validatedCount: 2 });
    expect(await deliveries(t, res.body.id)).toEqual([]);
  });

  it('runs the jobs of one account one at a time in creation order', async () => {
    const acc = await t.createAccount();
    const a = await post(t, acc.key, { messagesPerSecond: 10, messages: Array.from({ length: 14 }, () => sms()) });
    const b = await post(t, acc.key, { messagesPerSecond: 10, messages: Array.from({ length: 8 }, () => sms()) });
    await waitStatus(t, acc.key, a.body.id, ['completed']);
    await waitStatus(t, acc.key, b.body.id, ['completed']);
    const da = (await deliveries(t, a.body.id)).map((d) => Date.parse(d.deliveredAt));
    const db = (await deliveries(t, b.body.id)).map((d) => Date.parse(d.deliveredAt));
    expect(Math.min(...db)).toBeGreaterThanOrEqual(Math.max(...da));
  });

  it('pause (user), resume, cancel; INVALID_JOB_STATE for moves not allowed', async () => {
    const acc = await t.createAccount();
    const res = await post(t, acc.key, { messagesPerSecond: 2, messages: Array.from({ length: 30 }, () => sms()) });
    const id = res.body.id;
    await waitFor(async () => (await getJob(t, acc.key, id)).counts.sent >= 1, { what: 'first send' });
    const paused = await t.http().post(`/api/v2/messages/bulk/${id}/pause`).set('X-API-Key', acc.key);
    expect(paused.status).toBe(200);
    expect(paused.body.job).toMatchObject({ status: 'paused', pauseReason: 'user' });
    const countAtPause: number = paused.body.job.counts.sent;
    const again = await t.http().post(`/api/v2/messages/bulk/${id}/pause`).set('X-API-Key', acc.key);
    expect([again.status, again.body.code]).toEqual([409, 'INVALID_JOB_STATE']);
    // At most the current window (messagesPerSecond = 2 rows) finishes after the pause. The runner
    // lets go of the lease once it saw the pause, so the count cannot change after that.
    await waitFor(
      async () => {
        const [job] = await ds(t).query('SELECT lease_owner FROM bulk_jobs WHERE id = ?', [id]);
        return job.lease_owner === null;
      },
      { what: 'runner stopped' },
    );
    const settled = await getJob(t, acc.key, id);
    expect(settled).toMatchObject({ status: 'paused', pauseReason: 'user' });
    const sentAtPause = settled.counts.sent;
    expect(sentAtPause).toBeLessThanOrEqual(countAtPause + 2);
    expect(await deliveries(t, id)).toHaveLength(sentAtPause);
    const resumed = await t.http().post(`/api/v2/messages/bulk/${id}/resume`).set('X-API-Key', acc.key);
    expect(resumed.status).toBe(200);
    expect(resumed.body.job.pauseReason).toBeNull();
    await waitFor(async () => (await getJob(t, acc.key, id)).counts.sent > sentAtPause, { what: 'sending again' });
    const cancelled = await t.http().post(`/api/v2/messages/bulk/${id}/cancel`).set('X-API-Key', acc.key);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.job.status).toBe('cancelled');
    const final = await waitFor(async () => {
      const j = await getJob(t, acc.key, id);
      return j.counts.pending === 0 ? j : null;
    });
    expect(final.counts.sent + final.counts.cancelled + final.counts.failed).toBe(30);
    expect(final.counts.cancelled).toBeGreaterThan(0);
    expect((await deliveries(t, id)).length).toBe(final.counts.sent);
    for (const op of ['pause', 'resume', 'cancel']) {
      const r = await t.http().post(`/api/v2/messages/bulk/${id}/${op}`).set('X-API-Key', acc.key);
      expect([op, r.status, r.body.code]).toEqual([op, 409, 'INVALID_JOB_STATE']);
    }
    const cancelledRows = await rows(acc.key, id, '?status=cancelled&limit=1000');
    expect(cancelledRows.rows).toHaveLength(final.counts.cancelled);
  });

  it('a provider rate limit pauses with provider_rate_limit and resumes by itself', async () => {
    const acc = await t.createAccount();
    const fault = await t
      .admin('post', '/admin/v1/sandbox/faults')
      .send({ kind: 'rate_limit', count: 1, accountId: acc.id });
    expect(fault.status).toBe(201);
    const res = await post(t, acc.key, { messagesPerSecond: 10, messages: Array.from({ length: 4 }, () => sms()) });
    const id = res.body.id;
    const paused = await waitStatus(t, acc.key, id, ['paused', 'completed']);
    expect(paused).toMatchObject({ status: 'paused', pauseReason: 'provider_rate_limit' });
    const done = await waitStatus(t, acc.key, id, ['completed']);
    expect(done.counts).toEqual({ pending: 0, sent: 4, failed: 0, cancelled: 0 });
    const sent = await deliveries(t, id);
    expect(sent.map((d) => d.rowIndex).sort()).toEqual([0, 1, 2, 3]);
  });

  it('rows report: 400 VALIDATION_ERROR for an unknown status filter or bad limit', async () => {
    const acc = await t.createAccount();
    const res = await post(t, acc.key, { messagesPerSecond: 1, messages: [sms()] });
    for (const q of ['?status=weird', '?limit=0', '?limit=abc', '?cursor=bad']) {
      const r = await t.http().get(`/api/v2/messages/bulk/${res.body.id}/rows${q}`).set('X-API-Key', acc.key);
      expect([q, r.status, r.body.code]).toEqual([q, 400, 'VALIDATION_ERROR']);
    }
  });

  it('rows report and job list: 400 (not 500) for inherited property names and repeated parameters', async () => {
    const acc = await t.createAccount();
    const res = await post(t, acc.key, { messagesPerSecond: 1, messages: [sms()] });
    for (const q of [
      '?status=constructor',
      '?status=__proto__',
      '?status=toString',
      '?cursor=a&cursor=b',
      '?limit=1&limit=2',
      '?status=sent&status=failed',
    ]) {
      const r = await t.http().get(`/api/v2/messages/bulk/${res.body.id}/rows${q}`).set('X-API-Key', acc.key);
      expect([q, r.status, r.body.code]).toEqual([q, 400, 'VALIDATION_ERROR']);
    }
    for (const q of ['?cursor=a&cursor=b', '?limit=1&limit=2', '?limit=0', '?limit=101', '?limit=abc']) {
      const r = await t.http().get(`/api/v2/messages/bulk${q}`).set('X-API-Key', acc.key);
      expect([q, r.status, r.body.code]).toEqual([q, 400, 'VALIDATION_ERROR']);
    }
    // Empty values still mean "no filter" / the default.
    expect((await rows(acc.key, res.body.id, '?status=&limit=&cursor=')).rows).toHaveLength(1);
    expect((await t.http().get('/api/v2/messages/bulk?limit=&cursor=').set('X-API-Key', acc.key)).status).toBe(200);
  });
});
