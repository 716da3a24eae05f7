import { DataSource } from 'typeorm';
import { BulkDispatcher } from '../../src/bulk/bulk-dispatcher';
import { BulkValidationLoop } from '../../src/bulk/bulk-validation.loop';
import { MessageLogRepository } from '../../src/messaging/message-log.repository';
import { ProviderGateway, toOutbound } from '../../src/messaging/provider-gateway';
import { windowMessageId } from '../../src/bulk/window-rows';
import { getJob, post, waitStatus } from '../support/bulk-helpers';
import { smtpApps } from '../support/smtp-apps';
import { TestAccount, TestApp, waitFor } from '../support/app';
import { accountIdOf } from '../../src/common/account-id';

// SMTP, like SMPP, the Cloud API and the Bot API, cannot be asked afterwards whether it received a
// message: a send whose answer was lost (crash, lost lease) must never be sent again blindly.
// A bulk job whose runner died mid-window is taken over (or, cancelled, settled by the reaper) from
// what the database holds: rows held `sending` under their ids, or the window the job records as in
// flight, whose rows' ids are derived again from it. Nothing is paid or sent twice.
describe('Bulk windows cut short by a crash (e2e)', () => {
  const h = smtpApps();
  const { start, stop, email, receivedCounts, message, wallet, payAndLog, sendAndMarkSent } = h;

  /** A validated one-row email job of an account with 1,000 in its wallet, on an app whose loops are off. */
  const oneEmailJob = async () => {
    const t = await start({ SCHEDULERS_ENABLED: 'false' });
    const acc = await t.createAccount({ walletBalance: 1000, freeMessages: 0 });
    const res = await post(t, acc.key, { messagesPerSecond: 10, messages: [email('a@example.org')] });
    const jobId = res.body.id as string;
    await t.app.get(BulkValidationLoop).runOnce();
    return { t, acc, jobId, db: t.app.get(DataSource) };
  };

  /** Another app on `t`'s database (its reaper running) until the job has no pending row left. */
  const settledOnRestart = async (t: TestApp, key: string, jobId: string) => {
    const b = await start({}, t.databaseUrl);
    const job = await waitFor(
      async () => {
        const j = await getJob(b, key, jobId);
        return j.counts.pending === 0 ? j : null;
      },
      { what: 'the rows left taken settled by the reaper' },
    );
    return { b, job };
  };

  it('bulk: rows left sending by a crash are settled from the message log: handed off -> DELIVERY_UNCONFIRMED, others sent once; retry-failed resends on request', async () => {
    const t = await start({ SCHEDULERS_ENABLED: 'false' });
    const acc: TestAccount = await t.createAccount({ walletBalance: 1000, freeMessages: 0 });
    const res = await post(t, acc.key, {
      messagesPerSecond: 10,
      messages: ['a@example.org', 'b@example.org', 'c@example.org'].map((to) => email(to)),
    });
    expect(res.status).toBe(202);
    const jobId = res.body.id as string;
    await t.app.get(BulkValidationLoop).runOnce();
    expect((await getJob(t, acc.key, jobId)).status).toBe('queued');

    // A replica (rep_dead) leased the job, claimed all three rows, paid and recorded rows 0 and 1,
    // handed row 0 to the SMTP server (which took it) and died before any outcome was written.
    const db = t.app.get(DataSource);
    const mids = ['msg_crash_row0', 'msg_crash_row1', 'msg_crash_row2'];
    for (const i of [0, 1]) {
      const { msg, origin } = await payAndLog(t, acc.id, jobId, i, mids[i]);
      if (i === 0) {
        await t.app.get(MessageLogRepository).markHandedOff(accountIdOf(acc.id), mids[0], Date.now());
        await t.app.get(ProviderGateway).send(toOutbound(mids[0], accountIdOf(acc.id), msg, origin));
      }
    }
    for (const i of [0, 1, 2])
      await db.query("UPDATE bulk_rows SET status = 'sending', message_id = ? WHERE job_id = ? AND idx = ?", [
        mids[i],
        jobId,
        i,
      ]);
    await db.query(
      "UPDATE bulk_jobs SET status = 'running', lease_owner = 'rep_dead', lease_expires_at = ? WHERE id = ?",
      [Date.now() - 1, jobId],
    );
    const paidTwo = await wallet(t, acc.key);
    const price = (1000 - paidTwo) / 2;
    expect(receivedCounts()).toEqual({ [mids[0]]: 1 });

    await stop(t);
    const b = await start({}, t.databaseUrl);
    const done = await waitStatus(b, acc.key, jobId, ['completed']);
    expect(done.counts).toEqual({ pending: 0, sent: 2, failed: 1, cancelled: 0 });
    const report = (await b.http().get(`/api/v2/messages/bulk/${jobId}/rows`).set('X-API-Key', acc.key)).body.data.rows;
    expect(
      report.map((r: { index: number; status: string; errorCode: string | null; messageId: string }) => [
        r.index,
        r.status,
        r.errorCode,
        r.messageId,
      ]),
    ).toEqual([
      [0, 'failed', 'DELIVERY_UNCONFIRMED', mids[0]],
      [1, 'sent', null, mids[1]],
      [2, 'sent', null, mids[2]],
    ]);
    expect(receivedCounts()).toEqual({ [mids[0]]: 1, [mids[1]]: 1, [mids[2]]: 1 });
    expect(await message(b, acc.key, mids[0])).toMatchObject({
      status: 'failed',
      errorCode: 'DELIVERY_UNCONFIRMED',
      cost: 0,
    });
    // Rows 1 and 2 paid once each, row 0 refunded.
    expect(await wallet(b, acc.key)).toBe(1000 - 2 * price);

    // Sending it again is the caller's explicit choice.
    const retry = await b.http().post(`/api/v2/messages/bulk/${jobId}/retry-failed`).set('X-API-Key', acc.key);
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ success: true, retried: 1, job: { status: 'queued' } });
    expect((await waitStatus(b, acc.key, jobId, ['completed'])).counts).toEqual({
      pending: 0,
      sent: 3,
      failed: 0,
      cancelled: 0,
    });
    const [row0] = (await b.http().get(`/api/v2/messages/bulk/${jobId}/rows`).set('X-API-Key', acc.key)).body.data.rows;
    expect(row0).toMatchObject({ index: 0, status: 'sent', errorCode: null });
    expect(row0.messageId).not.toBe(mids[0]);
    expect(receivedCounts()).toEqual({ [mids[0]]: 1, [row0.messageId]: 1, [mids[1]]: 1, [mids[2]]: 1 });
    expect(await wallet(b, acc.key)).toBe(1000 - 3 * price);
  });

  it('bulk: a row whose message was already settled unconfirmed (its settler died before writing the row) is not sent again', async () => {
    const { t, acc, jobId, db } = await oneEmailJob();
    const mid = 'msg_settled_row0';
    const { funding } = await payAndLog(t, acc.id, jobId, 0, mid);
    expect(await t.app.get(MessageLogRepository).markHandedOff(accountIdOf(acc.id), mid, Date.now())).toBe(true);
    // A recovering replica settled it DELIVERY_UNCONFIRMED and refunded it, then died before the row.
    await db.query(
      "UPDATE messages SET status = 'failed', error_code = 'DELIVERY_UNCONFIRMED', cost = 0, refunded_at = ? WHERE id = ?",
      [Date.now(), mid],
    );
    await db.query('UPDATE accounts SET wallet_balance = wallet_balance + ? WHERE id = ?', [funding.amount, acc.id]);
    await db.query("UPDATE bulk_rows SET status = 'sending', message_id = ? WHERE job_id = ? AND idx = 0", [
      mid,
      jobId,
    ]);
    await db.query(
      "UPDATE bulk_jobs SET status = 'running', lease_owner = 'rep_dead', lease_expires_at = ? WHERE id = ?",
      [Date.now() - 1, jobId],
    );
    await stop(t);

    const b = await start({}, t.databaseUrl);
    expect((await waitStatus(b, acc.key, jobId, ['completed'])).counts).toEqual({
      pending: 0,
      sent: 0,
      failed: 1,
      cancelled: 0,
    });
    const [row] = (await b.http().get(`/api/v2/messages/bulk/${jobId}/rows`).set('X-API-Key', acc.key)).body.data.rows;
    expect(row).toMatchObject({ index: 0, status: 'failed', errorCode: 'DELIVERY_UNCONFIRMED', messageId: mid });
    expect(h.smtp.received).toHaveLength(0);
    expect(await wallet(b, acc.key)).toBe(1000);
  });

  it('bulk: a job cancelled after its runner died mid-window gets its sending rows settled from the log, nothing sent, unsent ones refunded', async () => {
    const t = await start({ SCHEDULERS_ENABLED: 'false' });
    const acc = await t.createAccount({ walletBalance: 1000, freeMessages: 0 });
    const res = await post(t, acc.key, {
      messagesPerSecond: 10,
      messages: ['a', 'b', 'c', 'd', 'e'].map((x) => email(`${x}@example.org`)),
    });
    const jobId = res.body.id as string;
    await t.app.get(BulkValidationLoop).runOnce();
    const db = t.app.get(DataSource);
    const log = t.app.get(MessageLogRepository);
    // The dead runner's window: row 0 sent and logged sent; row 1 paid, never handed off; row 2 paid
    // and handed off (answer lost); row 3 claimed, never paid; row 4 claimed, then put back to pending
    // after the cancel (a window cut short).
    const mids = ['msg_orphan_0', 'msg_orphan_1', 'msg_orphan_2', 'msg_orphan_3'];
    let price = 0;
    for (const i of [0, 1, 2]) {
      const { msg, funding, origin } = await payAndLog(t, acc.id, jobId, i, mids[i]);
      price = funding.amount;
      if (i !== 1) expect(await log.markHandedOff(accountIdOf(acc.id), mids[i], Date.now())).toBe(true);
      if (i === 0) {
        await sendAndMarkSent(t, acc.id, mids[0], { msg, origin }, 'smtp-id-0');
      }
    }
    for (const i of [0, 1, 2, 3])
      await db.query("UPDATE bulk_rows SET status = 'sending', message_id = ? WHERE job_id = ? AND idx = ?", [
        mids[i],
        jobId,
        i,
      ]);
    await db.query("UPDATE bulk_rows SET status = 'sending' WHERE job_id = ? AND idx = 4", [jobId]);
    await db.query(
      "UPDATE bulk_jobs SET status = 'running', lease_owner = 'rep_dead', lease_expires_at = ? WHERE id = ?",
      [Date.now() - 1, jobId],
    );
    // The account cancels before any replica took the job over.
    const cancel = await t.http().post(`/api/v2/messages/bulk/${jobId}/cancel`).set('X-API-Key', acc.key);
    expect(cancel.status).toBe(200);
    expect(cancel.body.job).toMatchObject({
      status: 'cancelled',
      counts: { pending: 5, sent: 0, failed: 0, cancelled: 0 },
    });
    await db.query("UPDATE bulk_rows SET status = 'pending' WHERE job_id = ? AND idx = 4", [jobId]);
    expect(await wallet(t, acc.key)).toBe(1000 - 3 * price);
    await stop(t);

    const { b, job } = await settledOnRestart(t, acc.key, jobId);
    expect(job).toMatchObject({
      status: 'cancelled',
      total: 5,
      counts: { pending: 0, sent: 1, failed: 1, cancelled: 3 },
    });
    const report = (await b.http().get(`/api/v2/messages/bulk/${jobId}/rows`).set('X-API-Key', acc.key)).body.data.rows;
    expect(
      report.map((r: { index: number; status: string; errorCode: string | null }) => [r.index, r.status, r.errorCode]),
    ).toEqual([
      [0, 'sent', null],
      [1, 'cancelled', null],
      [2, 'failed', 'DELIVERY_UNCONFIRMED'],
      [3, 'cancelled', null],
      [4, 'cancelled', null],
    ]);
    expect(await message(b, acc.key, mids[1])).toMatchObject({ status: 'failed', errorCode: 'CANCELLED', cost: 0 });
    // The never-paid row's id is taken, so a stalled runner's late insert of it fails (and rolls back).
    expect(await message(b, acc.key, mids[3])).toMatchObject({ status: 'failed', errorCode: 'CANCELLED', cost: 0 });
    const late = {
      id: mids[3],
      accountId: accountIdOf(acc.id),
      msg: { channel: 'email', messageType: 'free_text', to: 'd@example.org', sender: null, scheduleAt: null } as never,
      funding: { source: 'wallet' as const, amount: price, units: 1 },
      status: 'queued' as const,
      origin: { bulkJobId: jobId, rowIndex: 3 },
    };
    await expect(b.app.get(MessageLogRepository).insert([late], Date.now())).rejects.toThrow();
    expect(h.smtp.received).toHaveLength(1);
    // Only the delivered message stays paid.
    expect(await wallet(b, acc.key)).toBe(1000 - price);
    const lease: { lease_owner: string | null }[] = await b.app
      .get(DataSource)
      .query('SELECT lease_owner FROM bulk_jobs WHERE id = ?', [jobId]);
    expect(lease[0].lease_owner).toBeNull();
  });

  it('bulk: a recovered row whose message was already sent completes without needing a balance', async () => {
    const { t, acc, jobId, db } = await oneEmailJob();
    const mid = 'msg_sent_row0';
    await payAndLog(t, acc.id, jobId, 0, mid);
    const marked = await t.app
      .get(MessageLogRepository)
      .markSent([{ accountId: accountIdOf(acc.id), id: mid, providerMessageId: 'smtp-1' }], Date.now());
    expect(marked.marked).toBe(1);
    // Sent and logged, then the runner died before writing the row; the wallet is empty since.
    await db.query("UPDATE bulk_rows SET status = 'sending', message_id = ? WHERE job_id = ? AND idx = 0", [
      mid,
      jobId,
    ]);
    await db.query(
      "UPDATE bulk_jobs SET status = 'running', lease_owner = 'rep_dead', lease_expires_at = ? WHERE id = ?",
      [Date.now() - 1, jobId],
    );
    await t.admin('patch', `/admin/v1/accounts/${acc.id}`).send({ walletBalance: 0 }).expect(200);
    await stop(t);

    const b = await start({}, t.databaseUrl);
    const done = await waitStatus(b, acc.key, jobId, ['completed', 'paused']);
    expect(done).toMatchObject({
      status: 'completed',
      pauseReason: null,
      counts: { pending: 0, sent: 1, failed: 0, cancelled: 0 },
    });
    expect(h.smtp.received).toHaveLength(0);
    expect(await wallet(b, acc.key)).toBe(0);
  });

  it('bulk: a batch slower than the lease keeps it (a window stops before a call with under 1.5 timeouts of lease left; the next renews it), so a second replica never sends the same rows', async () => {
    // Dispatch lease = max(BULK_LEASE_MS, 2 x provider timeout) = 6 s; 10 rows at ~700 ms each, one
    // call at a time (one lane), take over 7 s in one batch, so without renewal the lease would lapse
    // and replica b take the rows over. The margins (an answer 2.3 s inside the timeout, no call
    // started with under 4.5 s of lease left) hold on a loaded CI box.
    h.smtp.slowMs = 700;
    const extra = { BULK_LEASE_MS: '100', PROVIDER_TIMEOUT_MS: '3000', BULK_SEND_LANES: '1' };
    const a = await start({ ...extra, BULK_INSTANCE_ID: 'rep_a', SCHEDULERS_ENABLED: 'false' });
    const acc = await a.createAccount({ walletBalance: 1000, freeMessages: 0 });
    const res = await post(a, acc.key, {
      messagesPerSecond: 10,
      messages: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => email(`r${n}@example.org`)),
    });
    expect(res.status).toBe(202);
    const jobId = res.body.id as string;
    await a.app.get(BulkValidationLoop).runOnce();
    // Replica a leases the job and starts the batch; replica b (same database) polls for lapsed leases.
    await a.app.get(BulkDispatcher).tick();
    await waitFor(async () => h.smtp.received.length > 0, { what: 'first send of replica a' });
    const b = await start({ ...extra, BULK_INSTANCE_ID: 'rep_b' }, a.databaseUrl);
    const done = await waitStatus(b, acc.key, jobId, ['completed'], 30000);
    expect(done.counts).toEqual({ pending: 0, sent: 10, failed: 0, cancelled: 0 });
    expect(Object.values(receivedCounts())).toEqual(Array(10).fill(1));
    const sent: { n: number }[] = await b.app
      .get(DataSource)
      .query("SELECT COUNT(*) AS n FROM messages WHERE bulk_job_id = ? AND status = 'sent'", [jobId]);
    expect(Number(sent[0].n)).toBe(10);
  }); /**
   * A job validated and taken by a runner (rep_dead) that opened a window over rows 0..2 at `at` and
   * died: its rows are still `pending` (a window writes no row before its end), the range and time
   * are on the job, its lease has lapsed. Row 0 was paid, handed to the SMTP server (which took it)
   * and marked sent; row 1 paid, never handed off; row 2 never paid.
   */
  const windowCutShort = async (rows: number) => {
    const t = await start({ SCHEDULERS_ENABLED: 'false' });
    const acc = await t.createAccount({ walletBalance: 1000, freeMessages: 0 });
    const res = await post(t, acc.key, {
      messagesPerSecond: 10,
      messages: Array.from({ length: rows }, (_, i) => email(`r${i}@example.org`)),
    });
    expect(res.status).toBe(202);
    const jobId = res.body.id as string;
    await t.app.get(BulkValidationLoop).runOnce();
    const at = Date.now() - 5_000;
    const mids = [0, 1, 2].map((i) => windowMessageId(jobId, i, 0, at));
    const log = t.app.get(MessageLogRepository);
    let price = 0;
    for (const i of [0, 1]) {
      const { msg, funding, origin } = await payAndLog(t, acc.id, jobId, i, mids[i]);
      price = funding.amount;
      if (i === 0) {
        expect(await log.markHandedOff(accountIdOf(acc.id), mids[0], Date.now())).toBe(true);
        await sendAndMarkSent(t, acc.id, mids[0], { msg, origin }, 'smtp-0');
      }
    }
    const db = t.app.get(DataSource);
    await db.query(
      "UPDATE bulk_jobs SET status = 'running', lease_owner = 'rep_dead', lease_expires_at = ?, window_from = 0, window_to = 2, window_at = ? WHERE id = ?",
      [Date.now() - 1, at, jobId],
    );
    expect(
      await db.query(
        "SELECT COUNT(*) AS n FROM bulk_rows WHERE job_id = ? AND status = 'pending' AND message_id IS NULL",
        [jobId],
      ),
    ).toEqual([{ n: rows }]);
    expect(receivedCounts()).toEqual({ [mids[0]]: 1 });
    return { t, acc, jobId, mids, price };
  };
  const report = async (t: TestApp, key: string, jobId: string) =>
    (await t.http().get(`/api/v2/messages/bulk/${jobId}/rows`).set('X-API-Key', key)).body.data.rows.map(
      (r: { index: number; status: string; errorCode: string | null; messageId: string | null }) => [
        r.index,
        r.status,
        r.errorCode,
        r.messageId,
      ],
    );

  it('bulk: the window in flight when its runner died is sent by the next replica under the same ids: paid rows not paid again, nothing sent twice', async () => {
    const { t, acc, jobId, mids, price } = await windowCutShort(4);
    await stop(t);
    const b = await start({}, t.databaseUrl);
    const done = await waitStatus(b, acc.key, jobId, ['completed']);
    expect(done.counts).toEqual({ pending: 0, sent: 4, failed: 0, cancelled: 0 });
    const rows = await report(b, acc.key, jobId);
    expect(rows.slice(0, 3)).toEqual(mids.map((m, i) => [i, 'sent', null, m]));
    // Row 3 was not in the window: a later one took it, under an id of its own.
    expect(rows[3]).toEqual([3, 'sent', null, expect.stringMatching(/^msg_/)]);
    expect(mids).not.toContain(rows[3][3]);
    expect(Object.values(receivedCounts())).toEqual([1, 1, 1, 1]);
    expect(receivedCounts()[mids[0]]).toBe(1);
    // Four messages, each paid once.
    expect(await wallet(b, acc.key)).toBe(1000 - 4 * price);
  });

  it("bulk: a job cancelled after its runner died mid-window: the cancel leaves the window's rows to the reaper, which settles them from the log", async () => {
    const { t, acc, jobId, mids, price } = await windowCutShort(5);
    const cancel = await t.http().post(`/api/v2/messages/bulk/${jobId}/cancel`).set('X-API-Key', acc.key);
    expect(cancel.status).toBe(200);
    // Rows 3 and 4 (outside the window) are cancelled at once.
    expect(cancel.body.job).toMatchObject({
      status: 'cancelled',
      counts: { pending: 3, sent: 0, failed: 0, cancelled: 2 },
    });
    await stop(t);
    const { b, job } = await settledOnRestart(t, acc.key, jobId);
    expect(job).toMatchObject({ status: 'cancelled', counts: { pending: 0, sent: 1, failed: 0, cancelled: 4 } });
    expect(await report(b, acc.key, jobId)).toEqual([
      [0, 'sent', null, mids[0]],
      // (A cancelled row shows no message id; its message is looked up below.)
      [1, 'cancelled', null, null],
      [2, 'cancelled', null, null],
      [3, 'cancelled', null, null],
      [4, 'cancelled', null, null],
    ]);
    expect(await message(b, acc.key, mids[1])).toMatchObject({ status: 'failed', errorCode: 'CANCELLED', cost: 0 });
    // The never-paid row's derived id is taken, so a stalled runner's late payment of it fails on the key.
    expect(await message(b, acc.key, mids[2])).toMatchObject({ status: 'failed', errorCode: 'CANCELLED', cost: 0 });
    expect(receivedCounts()).toEqual({ [mids[0]]: 1 });
    expect(await wallet(b, acc.key)).toBe(1000 - price);
  });
});
