import { DataSource } from 'typeorm';
import { ScheduledSender } from '../../src/messaging/scheduled/scheduled-sender';
import { SandboxProvider } from '../../src/providers/sandbox/sandbox.provider';
import { createTestApp, makeDue, TestApp, waitFor } from '../support/app';
import { accountIdOf } from '../../src/common/account-id';

const PHONE = '+966501234567';
const FAST = { SCHEDULED_SEND_TICK_MS: '50' };

const body = (scheduleAt: unknown, to = PHONE) => ({
  to,
  channel: 'local_sms',
  messageType: 'free_text',
  content: { text: 'Later' },
  scheduleAt,
});
const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

describe('Scheduled sends (e2e)', () => {
  const apps: TestApp[] = [];
  const start = async (env: Record<string, string>, databaseUrl?: string) => {
    const app = await createTestApp({ env, databaseUrl });
    apps.push(app);
    return app;
  };
  afterEach(async () => {
    // Close every app; drop the database once (the last app owns it).
    while (apps.length > 1) await apps.shift()!.close({ keepDatabase: true });
    if (apps.length) await apps.shift()!.close();
  });

  const delivered = async (t: TestApp, accountId: string) =>
    (await t.admin('get', `/admin/v1/sandbox/messages?accountId=${accountId}`)).body.data.messages as {
      messageId: string;
    }[];
  const message = async (t: TestApp, key: string, id: string) =>
    (await t.http().get(`/api/v2/messages/${id}`).set('X-API-Key', key)).body.data;

  it('stores the message as scheduled, pays at schedule time, sends it once when due', async () => {
    const t = await start(FAST);
    const acc = await t.createAccount({ walletBalance: 100 });
    const at = inMs(2000);
    const res = await t.http().post('/api/v2/messages/send').set('X-API-Key', acc.key).send(body(at));
    expect(res.status).toBe(201);
    const m = res.body.data.messages[0];
    expect(m).toEqual({
      id: expect.any(String),
      to: PHONE,
      channel: 'local_sms',
      purpose: 'transactional',
      status: 'scheduled',
      cost: 5,
      scheduledAt: new Date(at).toISOString(),
      encoding: 'gsm7',
      segments: 1,
      livemode: true,
    });
    expect((await t.http().get('/api/v2/account').set('X-API-Key', acc.key)).body.data.walletBalance).toBe(95);
    expect(await message(t, acc.key, m.id)).toMatchObject({
      status: 'scheduled',
      scheduledAt: new Date(at).toISOString(),
    });
    expect(await delivered(t, acc.id)).toEqual([]);
    await waitFor(async () => (await message(t, acc.key, m.id)).status === 'sent', { what: 'scheduled message sent' });
    const d = await delivered(t, acc.id);
    expect(d.map((x) => x.messageId)).toEqual([m.id]);
    expect(Date.parse((d[0] as unknown as { deliveredAt: string }).deliveredAt)).toBeGreaterThanOrEqual(Date.parse(at));
    expect((await t.http().get('/api/v2/account').set('X-API-Key', acc.key)).body.data.walletBalance).toBe(95);
  });

  it('a batch can be scheduled; every recipient becomes scheduled', async () => {
    const t = await start(FAST);
    const acc = await t.createAccount();
    const res = await t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send(body(inMs(60_000), ['+966501111111', '+966502222222'] as unknown as string));
    expect(res.status).toBe(201);
    expect(res.body.data.messages.map((m: { status: string }) => m.status)).toEqual(['scheduled', 'scheduled']);
  });

  it('survives a restart and is sent exactly once by two replicas sharing the database', async () => {
    const a = await start({ SCHEDULERS_ENABLED: 'false' });
    const acc = await a.createAccount();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await a
        .http()
        .post('/api/v2/messages/send')
        .set('X-API-Key', acc.key)
        .send(body(inMs(60_000), `+96650123456${i + 1}`));
      expect(res.status).toBe(201);
      ids.push(res.body.data.messages[0].id);
    }
    await makeDue(a.app.get(DataSource), ids);
    await a.close({ keepDatabase: true });
    apps.splice(apps.indexOf(a), 1);
    // Restart as two replicas on the same database, both running the scheduler.
    const b = await start(FAST, a.databaseUrl);
    const c = await start(FAST, a.databaseUrl);
    await waitFor(
      async () => {
        const all = await Promise.all(ids.map((id) => message(b, acc.key, id)));
        return all.every((m) => m.status === 'sent');
      },
      { what: 'all scheduled messages sent' },
    );
    // More passes of both replicas find nothing left to send: one delivery per message.
    expect(await b.app.get(ScheduledSender).runOnce()).toBe(0);
    expect(await c.app.get(ScheduledSender).runOnce()).toBe(0);
    const b2 = await delivered(c, acc.id);
    expect(b2.map((d) => d.messageId).sort()).toEqual([...ids].sort());
  });

  it('after a crash between provider call and record, the lease expires and the provider lookup settles it (no second delivery)', async () => {
    const a = await start({ SCHEDULERS_ENABLED: 'false' });
    const acc = await a.createAccount();
    const res = await a
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send(body(inMs(60_000)));
    expect(res.status).toBe(201);
    const id = res.body.data.messages[0].id as string;
    await makeDue(a.app.get(DataSource), [id]);
    // Simulate a replica that claimed the row, reached the provider, then died before recording.
    await a.app
      .get(SandboxProvider)
      .send({ messageId: id, accountId: accountIdOf(acc.id), channel: 'local_sms', to: PHONE, text: 'Later' });
    await a.app
      .get(DataSource)
      .query('UPDATE messages SET attempts = 1, lease_owner = ?, lease_expires_at = ? WHERE id = ?', [
        'rep_dead',
        Date.now() - 1,
        id,
      ]);
    await a.close({ keepDatabase: true });
    apps.splice(apps.indexOf(a), 1);
    const b = await start(FAST, a.databaseUrl);
    await waitFor(async () => (await message(b, acc.key, id)).status === 'sent', { what: 'settled' });
    expect(await message(b, acc.key, id)).toMatchObject({ status: 'sent', providerMessageId: `sbx_${id}`, cost: 5 });
    expect((await delivered(b, acc.id)).map((d) => d.messageId)).toEqual([id]);
  });

  it('single sends left queued by a crash are settled: provider verdict if any, else failed and refunded', async () => {
    const a = await start({ SCHEDULERS_ENABLED: 'false' });
    const acc = await a.createAccount({ walletBalance: 100 });
    const ok = (await a.http().post('/api/v2/messages/send').set('X-API-Key', acc.key).send(body(undefined))).body.data
      .messages[0].id as string;
    await a
      .admin('post', '/admin/v1/sandbox/faults')
      .send({ kind: 'unavailable', count: 1, accountId: acc.id })
      .expect(201);
    const failed = await a.http().post('/api/v2/messages/send').set('X-API-Key', acc.key).send(body(undefined));
    expect(failed.status).toBe(503);
    const [{ id: interrupted }] = (await a.http().get('/api/v2/messages?status=failed').set('X-API-Key', acc.key)).body
      .data.messages;
    // Crash simulation: both rows paid and `queued` long ago, as if the process died mid-send.
    const db = a.app.get(DataSource);
    await db.query(
      "UPDATE messages SET status = 'queued', error_code = NULL, refunded_at = NULL, cost = 5, updated_at = 0 WHERE id IN (?, ?)",
      [ok, interrupted],
    );
    await db.query('UPDATE accounts SET wallet_balance = wallet_balance - 5 WHERE id = ?', [acc.id]);
    // A write the app did not make (as another replica's): its key lookup sees it within API_KEY_CACHE_MS.
    await waitFor(
      async () => (await a.http().get('/api/v2/account').set('X-API-Key', acc.key)).body.data.walletBalance === 90,
      { timeoutMs: 2000, intervalMs: 20, what: 'the balance after the simulated payment' },
    );
    await a.close({ keepDatabase: true });
    apps.splice(apps.indexOf(a), 1);
    const b = await start(FAST, a.databaseUrl);
    await waitFor(async () => (await message(b, acc.key, interrupted)).status === 'failed', { what: 'reconciled' });
    expect(await message(b, acc.key, interrupted)).toMatchObject({
      status: 'failed',
      errorCode: 'PROVIDER_UNAVAILABLE',
      cost: 0,
    });
    await waitFor(async () => (await message(b, acc.key, ok)).status === 'sent', { what: 'reconciled ok' });
    expect((await b.http().get('/api/v2/account').set('X-API-Key', acc.key)).body.data.walletBalance).toBe(95);
    expect((await delivered(b, acc.id)).map((d) => d.messageId)).toEqual([ok]);
  });

  it('a scheduled email with a large html body (over 64 KB) is stored, sent and recorded by the sandbox', async () => {
    const t = await start(FAST);
    const acc = await t.createAccount();
    const html = `<p>${'x'.repeat(150_000)}</p>`;
    const res = await t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send({
        to: 'big@example.org',
        channel: 'email',
        messageType: 'free_text',
        content: { subject: 'Big', html },
        scheduleAt: inMs(60_000),
      });
    expect(res.status).toBe(201);
    const id = res.body.data.messages[0].id as string;
    await makeDue(t.app.get(DataSource), [id]);
    await waitFor(async () => (await message(t, acc.key, id)).status === 'sent', {
      what: 'large scheduled email sent',
    });
    const [d] = (await t.admin('get', `/admin/v1/sandbox/messages?accountId=${acc.id}`)).body.data.messages as {
      messageId: string;
      text: string;
    }[];
    expect(d.messageId).toBe(id);
    expect(d.text).toHaveLength(html.length);
  });

  it('a scheduled message whose stored payload is unreadable is failed and refunded; the rest of the pass is sent', async () => {
    const t = await start({ SCHEDULERS_ENABLED: 'false' });
    const acc = await t.createAccount({ walletBalance: 100, freeMessages: 0 });
    const ids: string[] = [];
    for (const to of ['+966501111111', '+966502222222']) {
      const res = await t
        .http()
        .post('/api/v2/messages/send')
        .set('X-API-Key', acc.key)
        .send(body(inMs(60_000), to));
      expect(res.status).toBe(201);
      ids.push(res.body.data.messages[0].id);
    }
    await t.app.get(DataSource).query("UPDATE messages SET payload = '{' WHERE id = ?", [ids[0]]);
    await makeDue(t.app.get(DataSource), ids);
    expect(await t.app.get(ScheduledSender).runOnce()).toBe(2);
    expect(await message(t, acc.key, ids[0])).toMatchObject({ status: 'failed', errorCode: 'PROVIDER_ERROR', cost: 0 });
    expect(await message(t, acc.key, ids[1])).toMatchObject({ status: 'sent' });
    expect((await delivered(t, acc.id)).map((d) => d.messageId)).toEqual([ids[1]]);
    expect((await t.http().get('/api/v2/account').set('X-API-Key', acc.key)).body.data.walletBalance).toBe(95);
  });

  it('INVALID_SCHEDULE for a past, malformed or too distant scheduleAt', async () => {
    const t = await start({ SCHEDULERS_ENABLED: 'false' });
    const acc = await t.createAccount();
    for (const bad of [inMs(-1000), 'tomorrow', '2030-13-45T99:00:00Z', 12345, inMs(400 * 24 * 3600_000)]) {
      const res = await t.http().post('/api/v2/messages/send').set('X-API-Key', acc.key).send(body(bad));
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('INVALID_SCHEDULE');
      expect(res.body.error).toMatch(/scheduleAt/);
    }
    expect((await t.http().get('/api/v2/messages').set('X-API-Key', acc.key)).body.data.messages).toEqual([]);
  });
});
