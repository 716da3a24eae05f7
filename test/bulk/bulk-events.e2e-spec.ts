import { BulkJobStream } from '../../src/bulk/bulk-job-stream';
import { ProviderReceipt, RECEIPT_INTAKE, ReceiptIntake } from '../../src/providers/provider-events';
import { createTestApp, TestApp, waitFor } from '../support/app';
import { loadCommittedContract } from '../support/openapi-contract';
import { openSse, SseEvent, SseStream } from '../support/sse-client';
import { BULK_TEST_ENV, ds, getJob, JobJson, post, sms, waitStatus } from '../support/bulk-helpers';

const contract = loadCommittedContract();
const ORDER = ['accepting', 'validating', 'queued', 'running', 'completed'];

/** A job event's data, checked against the committed schema of the job object (as GET one job answers it). */
function jobOf(e: SseEvent): JobJson {
  expect(e.event).toBe('job');
  const job = JSON.parse(e.data) as JobJson;
  const problem = contract.check('GET', `/api/v2/messages/bulk/${job.id}`, 200, 'application/json', {
    success: true,
    job,
  });
  expect(problem).toBeNull();
  return job;
}

describe('Bulk job event stream (e2e)', () => {
  let t: TestApp;
  const streams: SseStream[] = [];
  const open = async (app: TestApp, key: string | null, jobId: string) => {
    const s = await openSse(`${app.baseUrl}/api/v2/messages/bulk/${jobId}/events`, key ? { 'X-API-Key': key } : {});
    streams.push(s);
    return s;
  };

  beforeAll(async () => {
    t = await createTestApp({
      env: { ...BULK_TEST_ENV, BULK_EVENTS_HEARTBEAT_MS: '150', BULK_EVENTS_MAX_PER_ACCOUNT: '2' },
    });
  });
  afterEach(() => {
    for (const s of streams.splice(0)) if (!s.isClosed()) s.abort();
  });
  afterAll(async () => {
    await t.close();
  });

  /** A job that sent `sentAtLeast` rows and is paused by the user (a state that does not change on its own). */
  async function pausedJob(key: string, sentAtLeast: number): Promise<string> {
    const res = await post(t, key, { messagesPerSecond: 2, messages: Array.from({ length: 20 }, () => sms()) });
    expect(res.status).toBe(202);
    await waitFor(async () => (await getJob(t, key, res.body.id)).counts.sent >= sentAtLeast, {
      what: `${sentAtLeast} sent`,
    });
    const paused = await t.http().post(`/api/v2/messages/bulk/${res.body.id}/pause`).set('X-API-Key', key);
    expect(paused.status).toBe(200);
    return res.body.id as string;
  }

  it('streams a job from creation to `end`: the job at once, each change (at most twice a second), then closes', async () => {
    const acc = await t.createAccount();
    const res = await post(t, acc.key, {
      name: 'live',
      messagesPerSecond: 2,
      messages: Array.from({ length: 6 }, () => sms()),
    });
    expect(res.status).toBe(202);
    const s = await open(t, acc.key, res.body.id);
    expect(s.status).toBe(200);
    expect(s.contentType).toBe('text/event-stream; charset=utf-8');
    await s.closed;

    const jobEvents = s.events.filter((e) => e.event === 'job');
    expect(s.events[0].event).toBe('job');
    const jobs = jobEvents.map(jobOf);
    expect(jobs[0]).toMatchObject({ id: res.body.id, name: 'live', total: 6 });
    expect(ORDER.indexOf(jobs[0].status)).toBeGreaterThanOrEqual(1);
    // Statuses only move forward, sent counts only grow, and the last job event is the completed job.
    for (let i = 1; i < jobs.length; i++) {
      expect(ORDER.indexOf(jobs[i].status)).toBeGreaterThanOrEqual(ORDER.indexOf(jobs[i - 1].status));
      expect(jobs[i].counts.sent).toBeGreaterThanOrEqual(jobs[i - 1].counts.sent);
      expect(JSON.stringify(jobs[i])).not.toBe(JSON.stringify(jobs[i - 1])); // only changes are sent
    }
    expect(jobs.length).toBeGreaterThanOrEqual(3);
    expect(new Set(jobs.map((j) => j.status)).has('running')).toBe(true);
    expect(jobs[jobs.length - 1]).toMatchObject({
      status: 'completed',
      counts: { pending: 0, sent: 6, failed: 0, cancelled: 0 },
      delivery: { delivered: 0, read: 0, undelivered: 0 },
    });
    // The app writes a job event at most every 500 ms (EVENTS_POLL_MS). The times are when the client read
    // them, in the same process as the app: on a busy box one event read late puts the next one closer
    // (381 ms seen in CI), so the bound leaves 200 ms for that; an unpaced stream sends changes ms apart.
    for (let i = 1; i < jobEvents.length; i++)
      expect(jobEvents[i].at - jobEvents[i - 1].at).toBeGreaterThanOrEqual(300);
    // `end` is the last event, once.
    expect(s.events.filter((e) => e.event === 'end')).toHaveLength(1);
    expect(s.events[s.events.length - 1]).toMatchObject({ event: 'end' });
    expect(JSON.parse(s.events[s.events.length - 1].data)).toEqual({ id: res.body.id, status: 'completed' });
    await waitFor(async () => t.app.get(BulkJobStream).openStreams === 0, { what: 'no stream left open' });
  });

  it('a final job answers its state and `end` at once', async () => {
    const acc = await t.createAccount();
    const res = await post(t, acc.key, { messagesPerSecond: 10, messages: [sms()] });
    await waitStatus(t, acc.key, res.body.id, ['completed']);
    const s = await open(t, acc.key, res.body.id);
    await s.closed;
    expect(s.events.map((e) => e.event)).toEqual(['job', 'end']);
    expect(jobOf(s.events[0]).status).toBe('completed');
  });

  it("receipts through the lifecycle's intake show in the delivery counts: the stream of a paused job, GET one job, the list", async () => {
    const acc = await t.createAccount();
    const id = await pausedJob(acc.key, 4);
    const s = await open(t, acc.key, id);
    const first = jobOf(await s.next((e) => e.event === 'job'));
    expect(first).toMatchObject({ status: 'paused', delivery: { delivered: 0, read: 0, undelivered: 0 } });
    const sent: { provider_message_id: string }[] = await ds(t).query(
      "SELECT provider_message_id FROM messages WHERE bulk_job_id = ? AND status = 'sent' ORDER BY id",
      [id],
    );
    expect(sent.length).toBeGreaterThanOrEqual(4);
    // Receipts through the lifecycle's intake, as a provider hook hands them over: two delivered, one
    // read (before any delivered: it sets both), one the carrier did not deliver.
    const receipt = (
      i: number,
      status: ProviderReceipt['status'],
      errorCode: ProviderReceipt['errorCode'] = null,
    ): ProviderReceipt => ({
      providerMessageId: sent[i].provider_message_id,
      status,
      providerStatus: status,
      errorCode,
      providerErrorCode: errorCode ? '001' : null,
      at: Date.now(),
    });
    await t.app
      .get<ReceiptIntake>(RECEIPT_INTAKE)
      .accept([
        receipt(0, 'delivered'),
        receipt(1, 'delivered'),
        receipt(2, 'read'),
        receipt(3, 'failed', 'UNDELIVERED'),
      ]);
    const expected = { delivered: 3, read: 1, undelivered: 1 };

    const changed = jobOf(
      await s.next(
        (e) =>
          e.event === 'job' &&
          (JSON.parse(e.data) as JobJson).delivery !== undefined &&
          JSON.stringify((JSON.parse(e.data) as JobJson).delivery) === JSON.stringify(expected),
      ),
    );
    expect(changed.status).toBe('paused');
    expect(s.isClosed()).toBe(false);
    expect((await getJob(t, acc.key, id)).delivery).toEqual(expected);
    const list = await t.http().get('/api/v2/messages/bulk').set('X-API-Key', acc.key);
    expect(list.status).toBe(200);
    expect(list.body.data.jobs).toHaveLength(1);
    expect(list.body.data.jobs[0].delivery).toEqual(expected);

    // Cancelling ends the stream: the cancelled job, then `end`.
    const cancelled = await t.http().post(`/api/v2/messages/bulk/${id}/cancel`).set('X-API-Key', acc.key);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.job.delivery).toEqual(expected);
    await s.closed;
    const last = s.events.filter((e) => e.event === 'job').pop()!;
    expect(jobOf(last).status).toBe('cancelled');
    expect(s.events[s.events.length - 1].event).toBe('end');
  });

  it('sends a `: ping` comment while nothing changes; a client that leaves stops the polling', async () => {
    const acc = await t.createAccount();
    const id = await pausedJob(acc.key, 1);
    const s = await open(t, acc.key, id);
    await waitFor(async () => s.comments.length >= 3, { what: 'three heartbeats' });
    expect(new Set(s.comments)).toEqual(new Set(['ping']));
    expect(s.events.map((e) => e.event)).toEqual(['job']);
    const service = t.app.get(BulkJobStream);
    expect(service.openStreams).toBe(1);
    s.abort();
    await waitFor(async () => service.openStreams === 0, { what: 'the stream released' });
  });

  it('an account holds at most BULK_EVENTS_MAX_PER_ACCOUNT streams on a replica: 429 RATE_LIMITED past it, free again once one closes', async () => {
    const acc = await t.createAccount();
    const other = await t.createAccount();
    const id = await pausedJob(acc.key, 1);
    const a = await open(t, acc.key, id);
    const b2 = await open(t, acc.key, id);
    expect([a.status, b2.status]).toEqual([200, 200]);
    const refused = await t.http().get(`/api/v2/messages/bulk/${id}/events`).set('X-API-Key', acc.key);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.body).toMatchObject({ success: false, code: 'RATE_LIMITED', retryAfterSeconds: 1 });
    // Another account is not affected (its job paused too: a job that ends would close its stream and free a place by itself).
    const s = await open(t, other.key, await pausedJob(other.key, 1));
    expect(s.status).toBe(200);
    a.abort();
    await waitFor(async () => t.app.get(BulkJobStream).openStreams <= 2, { what: 'a stream released' });
    const again = await open(t, acc.key, id);
    expect(again.status).toBe(200);
  });

  it("answers 404 JOB_NOT_FOUND (JSON) for another account's job or an unknown id, 401 without a key", async () => {
    const owner = await t.createAccount();
    const other = await t.createAccount();
    const res = await post(t, owner.key, { messagesPerSecond: 10, messages: [sms()] });
    for (const [key, id] of [
      [other.key, res.body.id],
      [owner.key, 'bulk_nope'],
    ] as const) {
      const r = await t.http().get(`/api/v2/messages/bulk/${id}/events`).set('X-API-Key', key);
      expect(r.status).toBe(404);
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      expect(r.body).toMatchObject({ success: false, code: 'JOB_NOT_FOUND' });
    }
    const anon = await t.http().get(`/api/v2/messages/bulk/${res.body.id}/events`);
    expect(anon.status).toBe(401);
    expect(anon.body).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
    const noRead = await t.memberKey(owner.id, ['messages:create']);
    const forbidden = await t.http().get(`/api/v2/messages/bulk/${res.body.id}/events`).set('X-API-Key', noRead);
    expect(forbidden.status).toBe(403);
  });

  it("the sandbox's simulated receipts show in the stream while the job runs (one recipient undelivered)", async () => {
    const fast = await createTestApp({
      env: { ...BULK_TEST_ENV, SANDBOX_DELIVERED_AFTER_MS: '100', SANDBOX_RECEIPT_TICK_MS: '50' },
    });
    try {
      const acc = await fast.createAccount();
      // Sent, then failed UNDELIVERED by the sandbox (a number ending in 0009).
      const messages = [sms('+966501230009'), ...Array.from({ length: 5 }, () => sms())];
      const res = await post(fast, acc.key, { messagesPerSecond: 2, messages });
      expect(res.status).toBe(202);
      const s = await open(fast, acc.key, res.body.id);
      await s.closed;
      const jobs = s.events.filter((e) => e.event === 'job').map(jobOf);
      const last = jobs[jobs.length - 1];
      expect(last).toMatchObject({ status: 'completed', counts: { sent: 6 } });
      // Receipts of the first windows came in while later rows were still being sent.
      expect(jobs.some((j) => j.status === 'running' && j.delivery.delivered + j.delivery.undelivered > 0)).toBe(true);
      // The last receipts may come after `end`: GET shows them.
      const settled = await waitFor(
        async () => {
          const j = await getJob(fast, acc.key, res.body.id);
          return j.delivery.delivered + j.delivery.undelivered === 6 ? j : null;
        },
        { what: 'every receipt' },
      );
      expect(settled.delivery).toEqual({ delivered: 5, read: 0, undelivered: 1 });
      expect(settled.counts).toEqual({ pending: 0, sent: 6, failed: 0, cancelled: 0 });
    } finally {
      await fast.close();
    }
  });

  it('a second replica (no loops of its own) streams a job the first runs; its shutdown closes its streams', async () => {
    const replica = await createTestApp({
      databaseUrl: t.databaseUrl,
      env: { ...BULK_TEST_ENV, SCHEDULERS_ENABLED: 'false' },
    });
    let closed = false;
    try {
      const acc = await t.createAccount();
      const res = await post(t, acc.key, { messagesPerSecond: 2, messages: Array.from({ length: 6 }, () => sms()) });
      const s = await open(replica, acc.key, res.body.id);
      expect(s.status).toBe(200);
      await s.closed;
      const jobs = s.events.filter((e) => e.event === 'job').map(jobOf);
      expect(jobs.length).toBeGreaterThanOrEqual(2);
      expect(jobs[jobs.length - 1]).toMatchObject({ status: 'completed', counts: { sent: 6 } });
      expect(s.events[s.events.length - 1].event).toBe('end');

      // Shutdown: a stream of a job that is not final ends at once, without `end` (the client reconnects elsewhere).
      const paused = await pausedJob(acc.key, 1);
      const p = await open(replica, acc.key, paused);
      await p.next((e) => e.event === 'job');
      const started = Date.now();
      await replica.close({ keepDatabase: true });
      closed = true;
      await p.closed;
      expect(Date.now() - started).toBeLessThan(3000);
      expect(p.events.map((e) => e.event)).toEqual(['job']);
    } finally {
      if (!closed) await replica.close({ keepDatabase: true });
    }
  });
});
