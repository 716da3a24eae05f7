import { ModuleRef } from '@nestjs/core';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { Clock } from '../../src/common/clock';
import { MessagingModule } from '../../src/messaging/messaging.module';
import { ScheduledSender } from '../../src/messaging/scheduled/scheduled-sender';
import { createTestApp, TestAccount, TestApp, waitFor } from '../support/app';
import { isMysqlRun } from '../support/database';

const PHONE = '+966501234567';
const HOUR = 3_600_000;
const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();
const body = (to: string | string[] = PHONE) => ({
  to,
  channel: 'local_sms',
  messageType: 'free_text',
  content: { text: 'Later' },
  scheduleAt: inMs(HOUR),
});

interface Balances {
  wallet: number;
  free: number;
  quotaUsed: number;
}

/** POST /api/v2/messages/{id}/cancel: status, body, stored state and the money, on the real app. */
describe('Cancel a scheduled message (e2e)', () => {
  let t: TestApp;
  let realNow: () => number;

  beforeAll(async () => {
    // The sender runs only when a test drives it; the "being sent" case holds a call this long (room
    // for the cancel request on a busy machine).
    t = await createTestApp({ env: { SCHEDULERS_ENABLED: 'false', PROVIDER_TIMEOUT_MS: '3000' } });
    realNow = t.app.get(Clock).now;
  });
  afterEach(() => {
    t.app.get(Clock).now = realNow;
  });
  afterAll(() => t.close());

  const balances = async (app: TestApp, key: string): Promise<Balances> => {
    const d = (await app.http().get('/api/v2/account').set('X-API-Key', key)).body.data;
    return { wallet: d.walletBalance, free: d.freeMessages, quotaUsed: d.plan.messagesUsed };
  };
  const schedule = async (app: TestApp, acc: TestAccount, to: string | string[] = PHONE): Promise<string[]> => {
    const res = await app.http().post('/api/v2/messages/send').set('X-API-Key', acc.key).send(body(to));
    expect(res.status).toBe(201);
    return res.body.data.messages.map((m: { id: string; status: string }) => {
      expect(m.status).toBe('scheduled');
      return m.id;
    });
  };
  const cancel = (app: TestApp, key: string, id: string) =>
    app.http().post(`/api/v2/messages/${id}/cancel`).set('X-API-Key', key);
  const message = async (app: TestApp, key: string, id: string) =>
    (await app.http().get(`/api/v2/messages/${id}`).set('X-API-Key', key)).body.data;
  const stored = async (app: TestApp, id: string) =>
    (
      await app.app
        .get(DataSource)
        .query('SELECT status, cost, paid_from, refunded_at, payload FROM messages WHERE id = ?', [id])
    )[0] as Record<string, unknown>;
  const delivered = async (app: TestApp, accountId: string) =>
    (
      (await app.admin('get', `/admin/v1/sandbox/messages?accountId=${accountId}&limit=1000`)).body.data.messages as {
        messageId: string;
      }[]
    ).map((d) => d.messageId);
  /** Everything scheduled within the next hours is due for this app's sender. */
  const makeDue = (app: TestApp) => {
    app.app.get(Clock).now = () => Date.now() + 2 * HOUR;
  };

  it('200: the message becomes cancelled, is stored so, its wallet payment comes back and the sender never sends it', async () => {
    const acc = await t.createAccount({ walletBalance: 100, freeMessages: 0 });
    const [id] = await schedule(t, acc);
    expect(await balances(t, acc.key)).toEqual({ wallet: 95, free: 0, quotaUsed: 0 });
    const { statusHistory, ...before } = await message(t, acc.key, id);
    expect(statusHistory).toEqual([
      { status: 'scheduled', at: before.createdAt, source: 'api', providerStatus: null, errorCode: null },
    ]);

    const res = await cancel(t, acc.key, id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        message: {
          ...before,
          status: 'cancelled',
          cost: 0,
          paidFrom: 'wallet',
          providerMessageId: null,
          sentAt: null,
          updatedAt: expect.any(String),
        },
      },
    });
    const after = await message(t, acc.key, id);
    expect(after).toEqual({
      ...res.body.data.message,
      statusHistory: [
        statusHistory[0],
        {
          status: 'cancelled',
          at: res.body.data.message.updatedAt,
          source: 'api',
          providerStatus: null,
          errorCode: null,
        },
      ],
    });
    expect(await stored(t, id)).toMatchObject({ status: 'cancelled', paid_from: 'wallet', payload: null });
    expect(Number((await stored(t, id)).cost)).toBe(0);
    expect((await stored(t, id)).refunded_at).not.toBeNull();
    expect(await balances(t, acc.key)).toEqual({ wallet: 100, free: 0, quotaUsed: 0 });
    const listed = await t.http().get('/api/v2/messages?status=cancelled').set('X-API-Key', acc.key);
    expect(listed.body.data.messages.map((m: { id: string }) => m.id)).toEqual([id]);

    makeDue(t);
    await t.app.get(ScheduledSender).runOnce();
    expect((await message(t, acc.key, id)).status).toBe('cancelled');
    expect(await delivered(t, acc.id)).toEqual([]);
    expect(await balances(t, acc.key)).toEqual({ wallet: 100, free: 0, quotaUsed: 0 });
  });

  it.each([
    [
      'free messages',
      { freeMessages: 2, messageQuota: 5, walletBalance: 100 },
      'free',
      { wallet: 100, free: 1, quotaUsed: 0 },
      { wallet: 100, free: 2, quotaUsed: 0 },
    ],
    [
      'plan quota',
      { freeMessages: 0, messageQuota: 5, walletBalance: 100 },
      'quota',
      { wallet: 100, free: 0, quotaUsed: 1 },
      { wallet: 100, free: 0, quotaUsed: 0 },
    ],
  ])('refunds to the source that paid: %s', async (_name, fields, source, paid, refunded) => {
    const acc = await t.createAccount(fields);
    const [id] = await schedule(t, acc);
    expect(await balances(t, acc.key)).toEqual(paid);
    expect((await message(t, acc.key, id)).paidFrom).toBe(source);
    const res = await cancel(t, acc.key, id);
    expect(res.status).toBe(200);
    expect(res.body.data.message).toMatchObject({ id, status: 'cancelled', paidFrom: source, cost: 0 });
    expect(await balances(t, acc.key)).toEqual(refunded);
  });

  it('409 INVALID_STATE a second time: cancelled is final, refunded once', async () => {
    const acc = await t.createAccount({ walletBalance: 100, freeMessages: 0 });
    const [id] = await schedule(t, acc);
    expect((await cancel(t, acc.key, id)).status).toBe(200);
    const again = await cancel(t, acc.key, id);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      success: false,
      code: 'INVALID_STATE',
      error: expect.stringMatching(/cancelled already/),
    });
    expect((await stored(t, id)).status).toBe('cancelled');
    expect(await balances(t, acc.key)).toEqual({ wallet: 100, free: 0, quotaUsed: 0 });
  });

  it('409 INVALID_STATE once sent, or failed; the message and the balance stay as they were', async () => {
    const acc = await t.createAccount({ walletBalance: 100, freeMessages: 0 });
    const [sent, failed] = await schedule(t, acc, ['+966501111111', '+966502222222']);
    // The sandbox rejects the second one (it is sent after the first, in scheduled order).
    await t
      .admin('post', '/admin/v1/sandbox/faults')
      .send({ kind: 'reject', count: 1, accountId: acc.id, channel: 'local_sms' })
      .expect(201);
    makeDue(t);
    const sender = t.app.get(ScheduledSender);
    await waitFor(
      async () => {
        await sender.runOnce();
        const all = await Promise.all([sent, failed].map((id) => message(t, acc.key, id)));
        return all.every((m) => m.status !== 'scheduled') && all;
      },
      { what: 'both settled' },
    );
    const states: Record<string, string> = Object.fromEntries(
      await Promise.all([sent, failed].map(async (id) => [(await message(t, acc.key, id)).status as string, id])),
    );
    expect(Object.keys(states).sort()).toEqual(['failed', 'sent']);
    const before = await balances(t, acc.key);
    expect(before).toEqual({ wallet: 95, free: 0, quotaUsed: 0 });
    for (const [status, id] of Object.entries(states)) {
      const res = await cancel(t, acc.key, id);
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({
        success: false,
        code: 'INVALID_STATE',
        error: expect.stringMatching(status === 'sent' ? /sent already/ : /failed already/),
      });
      expect((await stored(t, id)).status).toBe(status);
    }
    expect(await balances(t, acc.key)).toEqual(before);
  });

  it('409 INVALID_STATE while the sender holds it; the sender settles it and the refund happens once', async () => {
    const acc = await t.createAccount({ walletBalance: 100, freeMessages: 0 });
    const [id] = await schedule(t, acc);
    // The sandbox never answers this call, so the sender holds its lease until the provider timeout.
    await t
      .admin('post', '/admin/v1/sandbox/faults')
      .send({ kind: 'timeout', count: 1, accountId: acc.id })
      .expect(201);
    makeDue(t);
    const pass = t.app.get(ScheduledSender).runOnce();
    await waitFor(
      async () =>
        (await t.app.get(DataSource).query('SELECT lease_owner FROM messages WHERE id = ?', [id]))[0].lease_owner,
      { what: 'claimed' },
    );
    const res = await cancel(t, acc.key, id);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'INVALID_STATE', error: expect.stringMatching(/being sent/) });
    expect((await stored(t, id)).status).toBe('scheduled');
    await pass;
    // The timed-out send failed and was refunded by the pipeline, not by the cancel.
    expect(await message(t, acc.key, id)).toMatchObject({
      status: 'failed',
      errorCode: 'PROVIDER_UNAVAILABLE',
      cost: 0,
    });
    expect(await balances(t, acc.key)).toEqual({ wallet: 100, free: 0, quotaUsed: 0 });
    expect((await cancel(t, acc.key, id)).status).toBe(409);
  });

  it('409 INVALID_STATE for a message whose sender crashed holding it (expired lease): the sender settles it, not the cancel', async () => {
    const acc = await t.createAccount({ walletBalance: 100, freeMessages: 0 });
    const [id] = await schedule(t, acc);
    const db = t.app.get(DataSource);
    await db.query('UPDATE messages SET attempts = 1, lease_owner = ?, lease_expires_at = ? WHERE id = ?', [
      'rep_dead',
      Date.now() - 1,
      id,
    ]);
    const res = await cancel(t, acc.key, id);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('INVALID_STATE');
    makeDue(t);
    await t.app.get(ScheduledSender).runOnce();
    expect((await message(t, acc.key, id)).status).toBe('sent');
    expect(await delivered(t, acc.id)).toEqual([id]);
    expect(await balances(t, acc.key)).toEqual({ wallet: 95, free: 0, quotaUsed: 0 });
  });

  it("404 NOT_FOUND for another account's message and for an unknown id; nothing changes", async () => {
    const owner = await t.createAccount({ walletBalance: 100, freeMessages: 0 });
    const other = await t.createAccount({ walletBalance: 100, freeMessages: 0 });
    const [id] = await schedule(t, owner);
    for (const res of [await cancel(t, other.key, id), await cancel(t, owner.key, 'msg_does_not_exist')]) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({
        success: false,
        code: 'NOT_FOUND',
        error: 'Message not found',
        requestId: expect.any(String),
      });
    }
    expect((await stored(t, id)).status).toBe('scheduled');
    expect(await balances(t, owner.key)).toEqual({ wallet: 95, free: 0, quotaUsed: 0 });
    expect(await balances(t, other.key)).toEqual({ wallet: 100, free: 0, quotaUsed: 0 });
  });

  it('403 FORBIDDEN for a member key without messages:create; a member key with it may cancel', async () => {
    const acc = await t.createAccount({ walletBalance: 100, freeMessages: 0 });
    const [id] = await schedule(t, acc);
    const reader = await t.memberKey(acc.id, ['messages:read']);
    const res = await cancel(t, reader, id);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ success: false, code: 'FORBIDDEN' });
    expect((await stored(t, id)).status).toBe('scheduled');
    expect(await balances(t, acc.key)).toEqual({ wallet: 95, free: 0, quotaUsed: 0 });
    const sender = await t.memberKey(acc.id, ['messages:create']);
    expect((await cancel(t, sender, id)).status).toBe(200);
    expect(await balances(t, acc.key)).toEqual({ wallet: 100, free: 0, quotaUsed: 0 });
  });
});

describe('Cancel against the scheduled sender on two replicas (e2e race)', () => {
  const N = 30;
  const PRICE = 5;
  const apps: TestApp[] = [];
  afterAll(async () => {
    while (apps.length > 1) await apps.pop()!.close({ keepDatabase: true });
    if (apps.length) await apps.pop()!.close();
  });

  it('every message ends exactly one of sent (delivered once) or cancelled (refunded once to its source); the money adds up', async () => {
    const env = { SCHEDULERS_ENABLED: 'false', SCHEDULED_SEND_BATCH: '1' };
    const a = await createTestApp({ env });
    apps.push(a);
    // MariaDB: a second app on the same database, with its own pool. SQLite: two apps in one process
    // would stall each other in better-sqlite3's synchronous busy wait, so the second replica is a
    // second sender (its own lease owner) on the app's connection, as a second process would share the file.
    const b = isMysqlRun() ? await createTestApp({ env, databaseUrl: a.databaseUrl }) : a;
    if (b !== a) apps.push(b);
    const senders = [
      a.app.get(ScheduledSender),
      b === a
        ? await a.app.select(MessagingModule).get(ModuleRef, { strict: true }).create(ScheduledSender)
        : b.app.get(ScheduledSender),
    ];
    // Exactly N payable: 10 free messages, 10 of plan quota, 10 from the wallet.
    const acc = await a.createAccount({ freeMessages: 10, messageQuota: 10, walletBalance: 10 * PRICE });
    const phones = Array.from({ length: N }, (_, i) => `+9665010001${String(i).padStart(2, '0')}`);
    const res = await a
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send({ ...body(), to: phones });
    expect(res.status).toBe(201);
    const ids: string[] = res.body.data.messages.map((m: { id: string }) => m.id);
    const page = (await a.http().get('/api/v2/messages?limit=100').set('X-API-Key', acc.key)).body.data.messages as {
      id: string;
      paidFrom: string;
    }[];
    const source = new Map(page.map((m) => [m.id, m.paidFrom]));
    expect([...source.values()].sort()).toEqual([
      ...Array(10).fill('free'),
      ...Array(10).fill('quota'),
      ...Array(10).fill('wallet'),
    ]);

    for (const app of [a, b]) app.app.get(Clock).now = () => Date.now() + 2 * HOUR;
    // Both senders take one message per pass, oldest first, with a turn of the event loop between
    // passes as the real interval gives (on SQLite the driver is synchronous: back-to-back passes would
    // never let a request in). Meanwhile every message gets a cancel, all at once, last message first,
    // through both replicas' HTTP.
    const drain = async (sender: ScheduledSender) => {
      while ((await sender.runOnce()) > 0) await new Promise((r) => setImmediate(r));
    };
    const cancel = (app: TestApp, id: string): Promise<[string, Response]> =>
      app
        .http()
        .post(`/api/v2/messages/${id}/cancel`)
        .set('X-API-Key', acc.key)
        .then((r) => [id, r]);
    // One pass before the cancels start, so the oldest message is sent whoever is faster on this
    // machine (on MariaDB the cancels otherwise win almost every message).
    expect(await senders[0].runOnce()).toBe(1);
    const cancels = Promise.all([...ids].reverse().map((id, i) => cancel(i % 2 ? b : a, id)));
    const [answers] = await Promise.all([cancels, drain(senders[0]), drain(senders[1])]);
    // A pass whose one message went to the other side answers 0 and ends its drain early: a last
    // drain, alone, sends whatever is still due.
    await drain(senders[0]);

    const final = new Map(
      await Promise.all(
        ids.map(
          async (id) =>
            [id, (await a.http().get(`/api/v2/messages/${id}`).set('X-API-Key', acc.key)).body.data] as const,
        ),
      ),
    );
    const deliveries = (
      await a.admin('get', `/admin/v1/sandbox/messages?accountId=${acc.id}&limit=1000`)
    ).body.data.messages.map((d: { messageId: string }) => d.messageId) as string[];
    const cancelled = ids.filter((id) => final.get(id)!.status === 'cancelled');
    const sent = ids.filter((id) => final.get(id)!.status === 'sent');
    expect(cancelled.length + sent.length).toBe(N);
    for (const [id, r] of answers) {
      if (r.status === 200) {
        expect(final.get(id)!.status).toBe('cancelled');
        expect(r.body.data.message).toMatchObject({ id, status: 'cancelled', cost: 0 });
      } else {
        expect(r.status).toBe(409);
        expect(r.body.code).toBe('INVALID_STATE');
        expect(final.get(id)!.status).toBe('sent');
      }
    }
    // Sent ones reached the provider exactly once; cancelled ones never did.
    expect([...deliveries].sort()).toEqual([...sent].sort());
    for (const id of sent) expect(final.get(id)!.cost).toBe(source.get(id) === 'wallet' ? PRICE : 0);
    const refunded = (src: string) => cancelled.filter((id) => source.get(id) === src).length;
    const d = (await a.http().get('/api/v2/account').set('X-API-Key', acc.key)).body.data;
    expect({ free: d.freeMessages, quotaUsed: d.plan.messagesUsed, wallet: d.walletBalance }).toEqual({
      free: refunded('free'),
      quotaUsed: 10 - refunded('quota'),
      wallet: refunded('wallet') * PRICE,
    });
    // Later passes of either replica find nothing to do.
    expect(await senders[1].runOnce()).toBe(0);
    // Both outcomes happened (measured before the head start: SQLite 11 cancelled / 19 sent, MariaDB 27-29 / 1-3).
    expect(sent.length).toBeGreaterThan(0);
    expect(cancelled.length).toBeGreaterThan(0);
  });
});
