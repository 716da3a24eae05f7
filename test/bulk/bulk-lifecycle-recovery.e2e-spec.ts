import { request } from 'node:http';
import { createTestApp, TestApp, waitFor } from '../support/app';
import { BULK_TEST_ENV, deliveries, ds, getJob, post, sms, waitStatus } from '../support/bulk-helpers';

describe('Bulk restart (e2e)', () => {
  it('a job left accepting becomes rejected INTAKE_INCOMPLETE at the next start, and a running job finishes after restart', async () => {
    let t = await createTestApp({ env: BULK_TEST_ENV });
    const acc = await t.createAccount();
    const now = Date.now();
    // The job and its row in one transaction: the reaper (every 100 ms) may reject the job at once, and
    // a row inserted after that would be left behind as if the rejection had kept it.
    await ds(t).transaction(async (m) => {
      await m.query(
        `INSERT INTO bulk_jobs (id, account_id, name, status, messages_per_second, total, validated_count, pending_count, sent_count, failed_count, cancelled_count, invalid_count, lease_owner, lease_expires_at, created_at, updated_at)
       VALUES ('bulk_crashed0000000000000001', ?, NULL, 'accepting', 0, 3, 0, 0, 0, 0, 0, 0, 'rep_dead', ?, ?, ?)`,
        [acc.id, now - 1, now - 60_000, now - 60_000],
      );
      await m.query(
        `INSERT INTO bulk_rows (job_id, idx, status, to_addr, channel, payload, attempt) VALUES ('bulk_crashed0000000000000001', 0, 'pending', NULL, NULL, '{}', 0)`,
      );
    });
    const running = await post(t, acc.key, { messagesPerSecond: 2, messages: Array.from({ length: 8 }, () => sms()) });
    await waitFor(async () => (await getJob(t, acc.key, running.body.id)).counts.sent >= 1);
    await t.close({ keepDatabase: true });
    // The reaper's next tick is far off: only its pass at start-up can reject the job.
    t = await createTestApp({ env: { ...BULK_TEST_ENV, BULK_REAPER_TICK_MS: '600000' }, databaseUrl: t.databaseUrl });
    try {
      const crashed = await waitStatus(t, acc.key, 'bulk_crashed0000000000000001', ['rejected'], 5000);
      expect(crashed).toMatchObject({ status: 'rejected', errorCode: 'INTAKE_INCOMPLETE' });
      const left = await ds(t).query(
        `SELECT COUNT(*) AS n FROM bulk_rows WHERE job_id = 'bulk_crashed0000000000000001'`,
      );
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
    const req = request({
      host: url.hostname,
      port: Number(url.port),
      method: 'POST',
      path: '/api/v2/messages/bulk',
      headers: { 'X-API-Key': acc.key, 'Idempotency-Key': 'cut', 'Content-Type': 'application/json' },
    });
    req.on('error', () => undefined);
    req.write(
      `{"messagesPerSecond":1,"messages":[${Array.from({ length: 3000 }, () => JSON.stringify(sms())).join(',')},`,
    );
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
