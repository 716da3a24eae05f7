import { idAt } from '../../src/common/ids';
import { AppConfig } from '../../src/config/app-config';
import { decoders, query, sql } from '../../src/database/sql';
import { DataSource } from 'typeorm';
import { UnitOfWork } from '../../src/database/unit-of-work';
import { TestAccount, TestApp, waitFor } from '../support/app';
import { expectError } from '../support/envelope';
import { DAY, retentionApp, retentionHelpers } from './retention-helpers';

/** What `orphans()` must always find: no child row whose parent is gone. */
const NO_ORPHANS = { message_status_history: 0, message_provider_refs: 0, sandbox_deliveries: 0, bulk_rows: 0 };

// The retention purger (issue 29): what goes after its retention, what is kept whatever its age, and
// that nothing it leaves behind points at a row it deleted.
describe('Retention purger (e2e)', () => {
  let t: TestApp;
  let shiftMs = 0;
  const h = retentionHelpers(() => t);
  const at = (days: number) => (shiftMs = days * DAY);

  beforeAll(async () => {
    t = await retentionApp(() => shiftMs);
  });
  afterAll(async () => {
    await t.close();
  });

  it('deletes settled messages past the account retention with their history, provider ids and sandbox deliveries; keeps the rest', async () => {
    at(0);
    const a = await t.createAccount();
    const long = await t.createAccount({ retentionDays: 200 });
    const gone = await h.sendSettled(a, [h.sms('+966501000001'), h.sms('+966501000002', 'x'.repeat(200))]);
    const keptLong = await h.sendSettled(long, [h.sms('+966501000003')]);
    const short = await t.createAccount({ retentionDays: 30 });
    await h.sendSettled(short, [h.sms('+966501000007')]);
    const scheduled = await h.send(a, {
      ...h.sms('+966501000004'),
      scheduleAt: new Date(Date.now() + 300 * DAY).toISOString(),
    });
    expect(scheduled.status).toBe(201);
    await h.rollUp();
    // Settled after the roll-up: not counted into usage yet, so kept whatever its age.
    const [uncounted] = await h.sendSettled(a, [h.sms('+966501000005')]);
    expect(
      await h.count('SELECT COUNT(*) AS n FROM message_status_history WHERE message_id IN (?, ?)', ...gone),
    ).toBeGreaterThan(2);
    expect(
      await h.count('SELECT COUNT(*) AS n FROM message_provider_refs WHERE message_id IN (?, ?)', ...gone),
    ).toBeGreaterThanOrEqual(2);

    at(89);
    await h.purge();
    expect(await h.count('SELECT COUNT(*) AS n FROM messages WHERE account_id = ?', a.id)).toBe(4);
    // An account with a shorter retention of its own: gone after its 30 days.
    expect(await h.count('SELECT COUNT(*) AS n FROM messages WHERE account_id = ?', short.id)).toBe(0);

    at(91);
    const report = await h.purge();
    expect(report.messages).toBe(2);
    const left = await h.q<{ id: string; status: string }>(
      'SELECT id, status FROM messages WHERE account_id IN (?, ?) ORDER BY id',
      a.id,
      long.id,
    );
    expect(left.map((m) => m.id).sort()).toEqual([keptLong[0], scheduled.body.data.messages[0].id, uncounted].sort());
    for (const table of ['message_status_history', 'message_provider_refs', 'sandbox_deliveries'])
      expect(await h.count(`SELECT COUNT(*) AS n FROM ${table} WHERE message_id IN (?, ?)`, ...gone)).toBe(0);
    expect(await h.orphans()).toEqual(NO_ORPHANS);

    // Counted now, it goes 90 days later; the 200-day account's message after 200 days.
    await h.rollUp();
    at(182);
    await h.purge();
    expect(await h.count('SELECT COUNT(*) AS n FROM messages WHERE id = ?', uncounted)).toBe(0);
    expect(await h.count('SELECT COUNT(*) AS n FROM messages WHERE id = ?', keptLong[0])).toBe(1);
    at(201);
    await h.purge();
    expect(await h.count('SELECT COUNT(*) AS n FROM messages WHERE id = ?', keptLong[0])).toBe(0);
    expect(
      await h.count('SELECT COUNT(*) AS n FROM messages WHERE account_id = ? AND status = ?', a.id, 'scheduled'),
    ).toBe(1);
    expect(await h.orphans()).toEqual(NO_ORPHANS);
    at(0);
  });

  it('deletes settled bulk jobs with their rows, keeps live jobs and jobs with rows to send, and old inbound messages', async () => {
    at(0);
    const a = await t.createAccount();
    const now = Date.now();
    const done = await h.insertJob(a.id, 'completed', ['sent', 'failed', 'sent'], now);
    const running = await h.insertJob(a.id, 'running', ['sent', 'pending'], now);
    const cancelledLive = await h.insertJob(a.id, 'cancelled', ['sent', 'sending'], now);
    const oldSms = await h.insertInbound(a.id, now);
    const unmatched = await h.insertInbound(null, now);
    at(91);
    const freshSms = await h.insertInbound(a.id, now + 91 * DAY);
    const report = await h.purge();
    expect(report.bulk_jobs).toBe(1);
    expect(report.bulk_rows).toBe(3);
    const jobs = await h.q<{ id: string }>('SELECT id FROM bulk_jobs WHERE account_id = ?', a.id);
    expect(jobs.map((j) => j.id).sort()).toEqual([running, cancelledLive].sort());
    expect(await h.count('SELECT COUNT(*) AS n FROM bulk_rows WHERE job_id = ?', done)).toBe(0);
    expect(await h.count('SELECT COUNT(*) AS n FROM bulk_rows WHERE job_id IN (?, ?)', running, cancelledLive)).toBe(4);
    const sms = await h.q<{ id: string }>(
      'SELECT id FROM inbound_sms WHERE id IN (?, ?, ?)',
      oldSms,
      unmatched,
      freshSms,
    );
    expect(sms.map((r) => r.id)).toEqual([freshSms]);
    expect(await h.orphans()).toEqual(NO_ORPHANS);
    at(0);
  });

  it('deletes sandbox deliveries after 7 days and counts what it deleted in the metrics', async () => {
    at(0);
    const a = await t.createAccount({ retentionDays: 365 });
    const [id] = await h.sendSettled(a, [h.sms('+966501000006')]);
    at(8);
    await h.purge();
    expect(await h.count('SELECT COUNT(*) AS n FROM sandbox_deliveries WHERE message_id = ?', id)).toBe(0);
    expect(await h.count('SELECT COUNT(*) AS n FROM messages WHERE id = ?', id)).toBe(1);
    const m = await h.scrape();
    expect(m.value('retention_purged_rows_total', { table: 'sandbox_deliveries' })).toBeGreaterThanOrEqual(1);
    expect(m.value('retention_purged_rows_total', { table: 'messages' })).toBeGreaterThanOrEqual(1);
    // The kept message is 8 days old on the app's clock.
    expect(m.value('retention_oldest_row_age_seconds', { table: 'messages' })).toBeGreaterThanOrEqual(8 * 86_400);
    at(0);
  });

  it('an account with a retention of its own is purged page by page, rows sharing the last time of a page included', async () => {
    at(0);
    const a = await t.createAccount({ retentionDays: 30 });
    const ids = await h.sendSettled(
      a,
      [1, 2, 3, 4, 5].map((i) => h.sms(`+96650100002${i}`)),
    );
    await h.rollUp();
    // One change time for all five: after a page of two, the next page starts at that time again.
    await h.q(
      'UPDATE messages SET updated_at = (SELECT MIN(updated_at) FROM (SELECT updated_at FROM messages WHERE account_id = ?) m) WHERE account_id = ?',
      a.id,
      a.id,
    );
    const settings = t.app.get(AppConfig).retention as { purgeBatch: number };
    const batch = settings.purgeBatch;
    settings.purgeBatch = 2;
    try {
      at(31);
      await h.purge();
    } finally {
      settings.purgeBatch = batch;
      at(0);
    }
    expect(await h.messagesLeft(ids)).toBe(0);
    expect(await h.orphans()).toEqual(NO_ORPHANS);
  });

  it('with one writer kept busy by other work, a pass deletes in quarter batches (others see each step) and still deletes every expired message', async () => {
    at(0);
    const a = await t.createAccount({ retentionDays: 30 });
    await h.sendSettled(
      a,
      Array.from({ length: 25 }, (_, i) => h.sms(`+9665010003${String(i).padStart(2, '0')}`)),
    );
    await h.rollUp();
    const uow = t.app.get(UnitOfWork);
    const left = query(decoders.n, sql('SELECT COUNT(*) AS n FROM messages WHERE account_id = ?', a.id));
    const settings = t.app.get(AppConfig).retention as { purgeBatch: number };
    const batch = settings.purgeBatch;
    settings.purgeBatch = 40;
    // Others: units that each read what is left and hold the writer a few milliseconds, until the pass ends.
    const seen = new Set<number>();
    let passing = true;
    const others = (async () => {
      while (passing)
        await uow.transaction(async (tx) => {
          seen.add((await tx.read(left))[0]);
          await new Promise((r) => setTimeout(r, 2));
        });
    })();
    try {
      at(31);
      await h.purge();
    } finally {
      passing = false;
      await others;
      settings.purgeBatch = batch;
      at(0);
    }
    expect((await uow.read(left))[0]).toBe(0);
    expect(await h.orphans()).toEqual(NO_ORPHANS);
    // One writer: units of 10 (a quarter of 40), so others saw 15 and 5 left; side by side the purger does not yield.
    if (!uow.capabilities.concurrentWrites)
      expect([...seen].filter((n) => n > 0 && n < 25).sort((x, y) => y - x)).toEqual([15, 5]);
  });

  it('where writes run side by side, a page holds RETENTION_PURGE_STREAMS units deleted at once: one waiting on a lock does not hold back the other', async () => {
    at(0);
    const a = await t.createAccount({ retentionDays: 30 });
    const ids = await h.sendSettled(
      a,
      [0, 1, 2, 3].map((i) => h.sms(`+96650100040${i}`)),
    );
    await h.rollUp();
    // Oldest change first: with units of two, the first two messages are one unit, the last two the other.
    const base = Date.now();
    for (const [i, id] of ids.entries()) await h.q('UPDATE messages SET updated_at = ? WHERE id = ?', base + i, id);
    const settings = t.app.get(AppConfig).retention as { purgeBatch: number; purgeStreams: number };
    const saved = { ...settings };
    Object.assign(settings, { purgeBatch: 2, purgeStreams: 2 });
    const uow = t.app.get(UnitOfWork);
    const holder = t.app.get(DataSource).createQueryRunner();
    try {
      at(31);
      if (uow.capabilities.concurrentWrites) {
        // Another transaction holds the first message's history: the first unit waits for it, the second goes on.
        await holder.connect();
        await holder.startTransaction();
        await holder.query('SELECT seq FROM message_status_history WHERE message_id = ? FOR UPDATE', [ids[0]]);
        const pass = h.purge();
        await waitFor(async () => (await h.messagesLeft(ids.slice(2))) === 0, { what: 'the second unit deleted' });
        expect(await h.messagesLeft(ids.slice(0, 2))).toBe(2);
        await holder.rollbackTransaction();
        await pass;
      } else await h.purge();
    } finally {
      if (holder.isTransactionActive) await holder.rollbackTransaction();
      await holder.release();
      Object.assign(settings, saved);
      at(0);
    }
    expect(await h.messagesLeft(ids)).toBe(0);
    expect(await h.orphans()).toEqual(NO_ORPHANS);
  });

  it('one replica purges at a time: another holding the lease makes a pass do nothing', async () => {
    // Past this app's own lease (twice the tick; earlier passes ran up to day 201), which another replica then took.
    at(400);
    const now = Date.now() + shiftMs;
    await h.q(
      "UPDATE privacy_leases SET owner = 'other-replica', expires_at = ? WHERE name = 'retention-purge'",
      now + 60_000,
    );
    const a = await t.createAccount();
    const old = await h.insertInbound(a.id, now - 100 * DAY);
    expect(await h.purge()).toEqual({});
    expect(await h.count('SELECT COUNT(*) AS n FROM inbound_sms WHERE id = ?', old)).toBe(1);
    // Expired: taken over.
    await h.q("UPDATE privacy_leases SET expires_at = ? WHERE name = 'retention-purge'", now - 1);
    expect((await h.purge()).inbound_sms).toBeGreaterThanOrEqual(1);
    expect(idAt('isms', now) > old).toBe(true);
  });

  describe('operator retentionDays', () => {
    let acc: TestAccount;
    beforeAll(async () => {
      acc = await t.createAccount();
    });

    it('is null by default, set within RETENTION_ACCOUNT_MAX_DAYS, cleared with null, and shown on the admin resource', async () => {
      expect((await t.admin('get', `/admin/v1/accounts/${acc.id}`)).body.data.account.retentionDays).toBeNull();
      const set = await t.admin('patch', `/admin/v1/accounts/${acc.id}`).send({ retentionDays: 30 });
      expect(set.status).toBe(200);
      expect(set.body.data.account.retentionDays).toBe(30);
      const list = await t.admin('get', '/admin/v1/accounts').query({ limit: 100 });
      expect(list.body.data.accounts.find((x: { id: string }) => x.id === acc.id).retentionDays).toBe(30);
      const cleared = await t.admin('patch', `/admin/v1/accounts/${acc.id}`).send({ retentionDays: null });
      expect(cleared.body.data.account.retentionDays).toBeNull();
    });

    it('past the maximum, not an integer or below 1 is 400 VALIDATION_ERROR and changes nothing', async () => {
      await t.admin('patch', `/admin/v1/accounts/${acc.id}`).send({ retentionDays: 60 });
      for (const retentionDays of [731, 0, 1.5, 'x'])
        expectError(
          await t.admin('patch', `/admin/v1/accounts/${acc.id}`).send({ retentionDays }),
          400,
          'VALIDATION_ERROR',
        );
      expectError(
        await t.admin('post', '/admin/v1/accounts').send({ name: 'x', retentionDays: 5000 }),
        400,
        'VALIDATION_ERROR',
      );
      expect((await t.admin('get', `/admin/v1/accounts/${acc.id}`)).body.data.account.retentionDays).toBe(60);
    });
  });
});
