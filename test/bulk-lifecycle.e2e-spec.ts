import { request } from 'node:http';
import { createTestApp, TestApp, waitFor } from './support/app';
import { BULK_TEST_ENV, BULK_TEST_ENV_PATIENT, deliveries, ds, getJob, maxInAnySecond, post, sms, waitStatus } from './bulk-helpers';

const rejectedPhone = () => `+96650${String(100 + Math.floor(Math.random() * 899))}0000`;

describe('Bulk lifecycle (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    // One call of a window at a time, so a provider error in the middle leaves the later rows untried (the case these tests pin down).
    t = await createTestApp({ env: { ...BULK_TEST_ENV_PATIENT, BULK_SEND_LANES: '1' } });
  });
  afterAll(async () => {
    await t.close();
  });

  const rows = async (key: string, id: string, query = '') => {
    const res = await t.http().get(`/api/v2/messages/bulk/${id}/rows${query}`).set('X-API-Key', key);
    expect(res.status).toBe(200);
    return res.body.data;
  };

  it('validates, queues and sends every row paced under messagesPerSecond; rows and message log agree', async () => {
    const acc = await t.createAccount();
    const res = await post(t, acc.key, { name: 'paced', messagesPerSecond: 4, messages: Array.from({ length: 14 }, () => sms()) });
    expect(res.status).toBe(202);
    const job = await waitStatus(t, acc.key, res.body.id, ['completed'], 30000);
    expect(job).toMatchObject({ total: 14, validatedCount: 14, counts: { pending: 0, sent: 14, failed: 0, cancelled: 0 }, errorCode: null });
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
    expect(report.rows[0]).toEqual({ index: 0, to: expect.any(String), channel: 'local_sms', status: 'sent', messageId: expect.stringMatching(/^msg_/), errorCode: null, errorMessage: null, sentAt: expect.any(String), encoding: 'gsm7', segments: 1, deliveryStatus: 'sent', deliveredAt: null });
    expect(report.hasMore).toBe(true);
    const next = await rows(acc.key, res.body.id, `?status=sent&limit=20&cursor=${encodeURIComponent(report.nextCursor)}`);
    expect(next.rows.map((r: { index: number }) => r.index)).toEqual([5, 6, 7, 8, 9, 10, 11, 12, 13]);
    const logged = await ds(t).query("SELECT COUNT(*) AS n FROM messages WHERE bulk_job_id = ? AND status = 'sent'", [res.body.id]);
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
    expect(report.rows[0]).toMatchObject({ status: 'invalid', errorCode: expect.any(String), errorMessage: expect.any(String) });
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
    await waitFor(async () => {
      const [job] = await ds(t).query('SELECT lease_owner FROM bulk_jobs WHERE id = ?', [id]);
      return job.lease_owner === null;
    }, { what: 'runner stopped' });
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

  it('retry-failed: 200 retried + queued job, 409 NOTHING_TO_RETRY, 402 INSUFFICIENT_BALANCE leaving rows failed', async () => {
    const acc = await t.createAccount();
    const msgs = [sms(), sms(rejectedPhone()), sms(), sms(rejectedPhone())];
    const res = await post(t, acc.key, { messagesPerSecond: 10, messages: msgs });
    const id = res.body.id;
    const done = await waitStatus(t, acc.key, id, ['completed']);
    expect(done.counts).toEqual({ pending: 0, sent: 2, failed: 2, cancelled: 0 });
    const failedRows = await rows(acc.key, id, '?status=failed');
    expect(failedRows.rows.map((r: { index: number; errorCode: string }) => [r.index, r.errorCode])).toEqual([[1, 'PROVIDER_REJECTED'], [3, 'PROVIDER_REJECTED']]);

    await t.admin('patch', `/admin/v1/accounts/${acc.id}`).send({ walletBalance: 0 });
    const poor = await t.http().post(`/api/v2/messages/bulk/${id}/retry-failed`).set('X-API-Key', acc.key);
    expect([poor.status, poor.body.code]).toEqual([402, 'INSUFFICIENT_BALANCE']);
    expect((await getJob(t, acc.key, id)).counts.failed).toBe(2);
    expect((await rows(acc.key, id, '?status=failed')).rows).toHaveLength(2);

    await t.admin('patch', `/admin/v1/accounts/${acc.id}`).send({ walletBalance: 1000 });
    const ok = await t.http().post(`/api/v2/messages/bulk/${id}/retry-failed`).set('X-API-Key', acc.key);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ success: true, retried: 2, job: { id, status: 'queued', counts: { pending: 2, sent: 2, failed: 0, cancelled: 0 } } });
    const again = await waitStatus(t, acc.key, id, ['completed']);
    expect(again.counts).toEqual({ pending: 0, sent: 2, failed: 2, cancelled: 0 });
    const none = await t.http().post(`/api/v2/messages/bulk/${id}/retry-failed`).set('X-API-Key', acc.key);
    expect(none.status).toBe(200);

    const clean = await post(t, acc.key, { messagesPerSecond: 10, messages: [sms()] });
    await waitStatus(t, acc.key, clean.body.id, ['completed']);
    const nothing = await t.http().post(`/api/v2/messages/bulk/${clean.body.id}/retry-failed`).set('X-API-Key', acc.key);
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
    expect(paused).toMatchObject({ pauseReason: 'insufficient_balance', counts: { pending: 3, sent: 2, failed: 0, cancelled: 0 } });
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
    const email = { to: 'ana@example.org', channel: 'email', messageType: 'free_text', content: { subject: 'Hi', text: 'x' } };
    await t.admin('post', '/admin/v1/sandbox/faults').send({ kind: 'unavailable', channel: 'email', count: 1, accountId: acc.id }).expect(201);
    const res = await post(t, acc.key, { messagesPerSecond: 10, messages: [sms(), sms(), email, sms(), sms(), sms()] });
    const id: string = res.body.id;
    const paused = await waitStatus(t, acc.key, id, ['paused', 'completed']);
    expect(paused).toMatchObject({ status: 'paused', pauseReason: 'insufficient_balance', counts: { pending: 3, sent: 2, failed: 1, cancelled: 0 } });
    /** The job's messages as [row, status, cost, errorCode], and the wallet, as the API shows them. */
    const messages = async () =>
      ((await t.http().get(`/api/v2/messages?bulkJobId=${id}`).set('X-API-Key', acc.key)).body.data.messages as { rowIndex: number; status: string; cost: number; errorCode: string | null }[])
        .sort((a, b) => a.rowIndex - b.rowIndex)
        .map((m) => [m.rowIndex, m.status, m.cost, m.errorCode]);
    const wallet = async () => (await t.http().get('/api/v2/account').set('X-API-Key', acc.key)).body.data.walletBalance as number;
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
    const report = (await rows(acc.key, id)).rows.map((r: { index: number; status: string; errorCode: string | null }) => [r.index, r.status, r.errorCode]);
    expect(report).toEqual([[0, 'sent', null], [1, 'sent', null], [2, 'failed', 'PROVIDER_UNAVAILABLE'], [3, 'pending', null], [4, 'pending', null], [5, 'pending', null]]);
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
    expect(cancel.body.job).toMatchObject({ status: 'cancelled', counts: { pending: 2, sent: 2, failed: 1, cancelled: 1 } });
    const job = await waitFor(async () => {
      const j = await getJob(t, acc.key, id);
      return j.counts.pending === 0 ? j : null;
    }, { what: 'paid rows settled by the reaper' });
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

  it('a provider rate limit pauses with provider_rate_limit and resumes by itself', async () => {
    const acc = await t.createAccount();
    const fault = await t.admin('post', '/admin/v1/sandbox/faults').send({ kind: 'rate_limit', count: 1, accountId: acc.id });
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
    for (const q of ['?status=constructor', '?status=__proto__', '?status=toString', '?cursor=a&cursor=b', '?limit=1&limit=2', '?status=sent&status=failed']) {
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

describe('Bulk restart (e2e)', () => {
  it('a job left accepting becomes rejected INTAKE_INCOMPLETE at the next start, and a running job finishes after restart', async () => {
    let t = await createTestApp({ env: BULK_TEST_ENV });
    const acc = await t.createAccount();
    const now = Date.now();
    await ds(t).query(
      `INSERT INTO bulk_jobs (id, account_id, name, status, messages_per_second, total, validated_count, pending_count, sent_count, failed_count, cancelled_count, invalid_count, lease_owner, lease_expires_at, created_at, updated_at)
       VALUES ('bulk_crashed0000000000000001', ?, NULL, 'accepting', 0, 3, 0, 0, 0, 0, 0, 0, 'rep_dead', ?, ?, ?)`,
      [acc.id, now - 1, now - 60_000, now - 60_000],
    );
    await ds(t).query(`INSERT INTO bulk_rows (job_id, idx, status, to_addr, channel, payload, attempt) VALUES ('bulk_crashed0000000000000001', 0, 'pending', NULL, NULL, '{}', 0)`);
    const running = await post(t, acc.key, { messagesPerSecond: 2, messages: Array.from({ length: 8 }, () => sms()) });
    await waitFor(async () => (await getJob(t, acc.key, running.body.id)).counts.sent >= 1);
    await t.close({ keepDatabase: true });
    // The reaper's next tick is far off: only its pass at start-up can reject the job.
    t = await createTestApp({ env: { ...BULK_TEST_ENV, BULK_REAPER_TICK_MS: '600000' }, databaseUrl: t.databaseUrl });
    try {
      const crashed = await waitStatus(t, acc.key, 'bulk_crashed0000000000000001', ['rejected'], 5000);
      expect(crashed).toMatchObject({ status: 'rejected', errorCode: 'INTAKE_INCOMPLETE' });
      const left = await ds(t).query(`SELECT COUNT(*) AS n FROM bulk_rows WHERE job_id = 'bulk_crashed0000000000000001'`);
      expect(Number(left[0].n)).toBe(0);
      const done = await waitStatus(t, acc.key, running.body.id, ['completed'], 30000);
      expect(done.counts).toEqual({ pending: 0, sent: 8, failed: 0, cancelled: 0 });
      const sent = await deliveries(t, running.body.id);
      expect(sent).toHaveLength(8);
      expect(new Set(sent.map((d) => d.rowIndex)).size).toBe(8);
    } finally {
      await t.close();
    }
  });
});

describe('Bulk intake interrupted (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: BULK_TEST_ENV });
  });
  afterAll(async () => {
    await t.close();
  });

  it('a client that disconnects mid-upload leaves a rejected INTAKE_INCOMPLETE job without rows', async () => {
    const acc = await t.createAccount();
    const url = new URL(t.baseUrl);
    const req = request({ host: url.hostname, port: Number(url.port), method: 'POST', path: '/api/v2/messages/bulk', headers: { 'X-API-Key': acc.key, 'Idempotency-Key': 'cut', 'Content-Type': 'application/json' } });
    req.on('error', () => undefined);
    req.write(`{"messagesPerSecond":1,"messages":[${Array.from({ length: 3000 }, () => JSON.stringify(sms())).join(',')},`);
    const stored = await waitFor(async () => {
      const rows = await ds(t).query('SELECT id, status, total FROM bulk_jobs WHERE account_id = ?', [acc.id]);
      return rows[0] && Number(rows[0].total) >= 1000 ? rows[0] : null;
    });
    req.destroy();
    const job = await waitStatus(t, acc.key, stored.id, ['rejected']);
    expect(job).toMatchObject({ errorCode: 'INTAKE_INCOMPLETE', total: 0 });
    const left = await ds(t).query('SELECT COUNT(*) AS n FROM bulk_rows WHERE job_id = ?', [stored.id]);
    expect(Number(left[0].n)).toBe(0);
  });

  it('the scheduled reaper rejects a job whose intake lease expired while the app runs', async () => {
    const acc = await t.createAccount();
    const now = Date.now();
    await ds(t).query(
      `INSERT INTO bulk_jobs (id, account_id, name, status, messages_per_second, total, validated_count, pending_count, sent_count, failed_count, cancelled_count, invalid_count, lease_owner, lease_expires_at, created_at, updated_at)
       VALUES ('bulk_stale00000000000000000001', ?, NULL, 'accepting', 0, 0, 0, 0, 0, 0, 0, 0, 'rep_gone', ?, ?, ?)`,
      [acc.id, now + 300, now, now],
    );
    expect((await getJob(t, acc.key, 'bulk_stale00000000000000000001')).status).toBe('accepting');
    const job = await waitStatus(t, acc.key, 'bulk_stale00000000000000000001', ['rejected']);
    expect(job.errorCode).toBe('INTAKE_INCOMPLETE');
  });

  it('cancel right after creation: pending rows become cancelled, counters still sum to total', async () => {
    const acc = await t.createAccount();
    const res = await post(t, acc.key, { messagesPerSecond: 1, messages: Array.from({ length: 5 }, () => sms()) });
    const c = await t.http().post(`/api/v2/messages/bulk/${res.body.id}/cancel`).set('X-API-Key', acc.key);
    expect(c.status).toBe(200);
    expect(c.body.job.status).toBe('cancelled');
    const k = c.body.job.counts;
    expect(k.pending + k.sent + k.failed + k.cancelled).toBe(5);
    expect(k.pending).toBeLessThanOrEqual(1); // at most the row in the provider's hands
    const later = await waitFor(async () => {
      const j = await getJob(t, acc.key, res.body.id);
      return j.counts.pending === 0 ? j : null;
    });
    expect(later.status).toBe('cancelled');
    expect(later.counts.sent + later.counts.cancelled).toBe(5);
    expect((await deliveries(t, res.body.id)).length).toBe(later.counts.sent);
  });
});

describe('Bulk dispatch with many paused jobs (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: BULK_TEST_ENV });
  });
  afterAll(async () => {
    await t.close();
  });

  it('a queued job runs although thousands of older jobs are paused by their users or for money', async () => {
    const acc = await t.createAccount();
    const other = await t.createAccount();
    // More paused jobs than the dispatcher looks at per tick, all older than the new job (ids sort by time).
    const now = Date.now();
    for (let chunk = 0; chunk < 11; chunk++) {
      const values: string[] = [];
      const params: (string | number)[] = [];
      for (let i = chunk * 500; i < (chunk + 1) * 500; i++) {
        values.push(`(?, ?, NULL, 'paused', ?, 1, 1, 1, 1, 0, 0, 0, 0, NULL, NULL, ?, ?)`);
        params.push(`bulk_00${String(i).padStart(10, '0')}paused`, i % 2 ? acc.id : other.id, i % 3 ? 'user' : 'insufficient_balance', now - 60_000, now - 60_000);
      }
      await ds(t).query(
        `INSERT INTO bulk_jobs (id, account_id, name, status, pause_reason, messages_per_second, total, validated_count, pending_count, sent_count, failed_count, cancelled_count, invalid_count, lease_owner, lease_expires_at, created_at, updated_at)
         VALUES ${values.join(', ')}`,
        params,
      );
    }
    const mine = await post(t, acc.key, { messagesPerSecond: 10, messages: [sms(), sms()] });
    const theirs = await post(t, other.key, { messagesPerSecond: 10, messages: [sms()] });
    expect((await waitStatus(t, acc.key, mine.body.id, ['completed'], 10000)).counts.sent).toBe(2);
    expect((await waitStatus(t, other.key, theirs.body.id, ['completed'], 10000)).counts.sent).toBe(1);
  });
});
