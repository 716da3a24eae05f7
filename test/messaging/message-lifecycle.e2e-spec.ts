import { UnitOfWork } from '../../src/database/unit-of-work';
import { EVENT_SINK, EventSink } from '../../src/messaging/events/event-sink';
import { OutcomeRecorder } from '../../src/messaging/outcome-recorder';
import { ProviderReceipt, RECEIPT_INTAKE, ReceiptIntake } from '../../src/providers/provider-events';
import { Webhook } from 'standardwebhooks';
import { createTestApp, TestAccount, TestApp, waitFor } from '../support/app';
import { startReceiver, WebhookReceiver } from '../support/webhook-receiver';
import { accountIdOf } from '../../src/common/account-id';

const PHONE = '+966501234567';
/** Sandbox receipts within a test's patience: delivered after 150 ms, read after 300 ms. */
const FAST_RECEIPTS = {
  SANDBOX_DELIVERED_AFTER_MS: '150',
  SANDBOX_READ_AFTER_MS: '300',
  SANDBOX_RECEIPT_TICK_MS: '20',
  RECEIPT_SWEEP_TICK_MS: '50',
};
const api = (status: string) => ({
  status,
  at: expect.any(String),
  source: 'api',
  providerStatus: null,
  errorCode: null,
});
const provider = (status: string, providerStatus: string, errorCode: string | null = null) => ({
  status,
  at: expect.any(String),
  source: 'provider',
  providerStatus,
  errorCode,
});
const receipt = (
  providerMessageId: string,
  status: ProviderReceipt['status'],
  extra: Partial<ProviderReceipt> = {},
): ProviderReceipt => ({
  providerMessageId,
  status,
  providerStatus: status.toUpperCase(),
  errorCode: null,
  providerErrorCode: null,
  at: Date.now(),
  ...extra,
});

describe('Message lifecycle: receipts, history, polling (e2e)', () => {
  const apps: TestApp[] = [];
  const start = async (env: Record<string, string> = {}, databaseUrl?: string) => {
    const app = await createTestApp({ env, databaseUrl });
    apps.push(app);
    return app;
  };
  afterAll(async () => {
    for (const a of apps) await a.close();
  });

  const send = (t: TestApp, acc: TestAccount, body: Record<string, unknown>) =>
    t.http().post('/api/v2/messages/send').set('X-API-Key', acc.key).send(body);
  const sms = (to = PHONE, extra: Record<string, unknown> = {}) => ({
    to,
    channel: 'local_sms',
    messageType: 'free_text',
    content: { text: 'Hello' },
    ...extra,
  });
  const sentId = async (t: TestApp, acc: TestAccount, body: Record<string, unknown>) => {
    const res = await send(t, acc, body);
    expect(res.status).toBe(201);
    return res.body.data.messages[0].id as string;
  };
  const get = async (t: TestApp, acc: TestAccount, id: string) => {
    const res = await t.http().get(`/api/v2/messages/${id}`).set('X-API-Key', acc.key);
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const wallet = async (t: TestApp, acc: TestAccount) =>
    (await t.http().get('/api/v2/account').set('X-API-Key', acc.key)).body.data.walletBalance as number;
  const statusOf = (t: TestApp, acc: TestAccount, id: string, status: string) =>
    waitFor(async () => (await get(t, acc, id)).status === status, { what: `${id} ${status}` });

  describe('sandbox receipts', () => {
    let t: TestApp;
    let acc: TestAccount;
    let receiver: WebhookReceiver;
    beforeAll(async () => {
      t = await start({ ...FAST_RECEIPTS, WEBHOOK_DELIVERY_INTERVAL_MS: '20' });
      acc = await t.createAccount({ walletBalance: 1000, freeMessages: 0 });
      receiver = await startReceiver();
    });
    afterAll(() => receiver.close());

    it('an endpoint subscribed to message.* gets message.sent then message.delivered, signed, with the resource and a growing sequence', async () => {
      const own = await t.createAccount({ walletBalance: 1000 });
      const ep = await t
        .http()
        .post('/api/v2/webhooks/endpoints')
        .set('X-API-Key', own.key)
        .send({ url: receiver.url, events: ['message.*'] });
      expect(ep.status).toBe(201);
      const id = await sentId(t, own, sms());
      await statusOf(t, own, id, 'delivered');
      const calls = await waitFor(
        async () => {
          const mine = receiver.calls.filter((c) => (c.body as { data?: { id?: string } }).data?.id === id);
          return mine.length >= 2 ? mine : null;
        },
        { what: 'two message events' },
      );
      const bodies = calls.map(
        (c) =>
          new Webhook(ep.body.data.endpoint.secret as string).verify(c.raw, {
            'webhook-id': String(c.headers['webhook-id']),
            'webhook-timestamp': String(c.headers['webhook-timestamp']),
            'webhook-signature': String(c.headers['webhook-signature']),
          }) as { type: string; data: Record<string, unknown> },
      );
      const { statusHistory, ...resource } = await get(t, own, id);
      expect(statusHistory).toHaveLength(3);
      expect(bodies.map((b) => [b.type, b.data.sequence, b.data.status]).sort()).toEqual([
        ['message.delivered', 3, 'delivered'],
        ['message.sent', 2, 'sent'],
      ]);
      expect(bodies.find((b) => b.type === 'message.delivered')!.data).toEqual({ ...resource, sequence: 3 });
    });

    it('an SMS is delivered; the history shows each step; billing is unchanged', async () => {
      const id = await sentId(t, acc, sms());
      expect(await wallet(t, acc)).toBe(995);
      await statusOf(t, acc, id, 'delivered');
      const m = await get(t, acc, id);
      expect(m).toMatchObject({
        status: 'delivered',
        cost: 5,
        readAt: null,
        failedAt: null,
        errorCode: null,
        providerErrorCode: null,
      });
      // (Due 150 ms after the provider call, which is a moment before the send is recorded.)
      expect(Date.parse(m.deliveredAt)).toBeGreaterThanOrEqual(Date.parse(m.sentAt) + 100);
      expect(m.statusHistory).toEqual([api('queued'), api('sent'), provider('delivered', 'delivered')]);
      expect(m.updatedAt >= m.deliveredAt).toBe(true);
      expect(await wallet(t, acc)).toBe(995);
    });

    it('a chat message is delivered, then read', async () => {
      const id = await sentId(t, acc, {
        to: PHONE,
        channel: 'chatapp',
        messageType: 'free_text',
        content: { text: 'Hi chat' },
      });
      await statusOf(t, acc, id, 'read');
      const m = await get(t, acc, id);
      expect(m.statusHistory).toEqual([
        api('queued'),
        api('sent'),
        provider('delivered', 'delivered'),
        provider('read', 'read'),
      ]);
      expect(Date.parse(m.readAt)).toBeGreaterThanOrEqual(Date.parse(m.deliveredAt));
    });

    it('0009 numbers and undeliverable@ emails are sent, then failed UNDELIVERED (paid, not refunded)', async () => {
      const before = await wallet(t, acc);
      const smsId = await sentId(t, acc, sms('+966501230009'));
      const mailId = await sentId(t, acc, {
        to: 'undeliverable.sara@example.org',
        channel: 'email',
        messageType: 'free_text',
        content: { subject: 'Hi', text: 'x' },
      });
      for (const id of [smsId, mailId]) {
        await statusOf(t, acc, id, 'failed');
        const m = await get(t, acc, id);
        expect(m).toMatchObject({
          status: 'failed',
          errorCode: 'UNDELIVERED',
          providerErrorCode: 'SBX-UNDELIVERABLE',
          deliveredAt: null,
        });
        expect(m.cost).toBeGreaterThan(0);
        expect(m.failedAt).not.toBeNull();
        expect(m.statusHistory).toEqual([
          api('queued'),
          api('sent'),
          provider('failed', 'undeliverable', 'UNDELIVERED'),
        ]);
      }
      expect(await wallet(t, acc)).toBe(before - 5 - 1);
    });
  });

  describe('receipts through RECEIPT_INTAKE', () => {
    let t: TestApp;
    let acc: TestAccount;
    let intake: ReceiptIntake;
    beforeAll(async () => {
      // No loops (no sandbox receipts, no sweeper): only the receipts the tests give arrive, and the
      // statements counted are the intake's own.
      t = await start({ SCHEDULERS_ENABLED: 'false' });
      acc = await t.createAccount({ walletBalance: 1000, freeMessages: 0 });
      intake = t.app.get<ReceiptIntake>(RECEIPT_INTAKE);
    });

    it('read before delivered sets both; duplicate, stale and late failure receipts change nothing; events carry a growing sequence', async () => {
      // Events are built for accounts with an endpoint (nothing is delivered here: the loops are off).
      const endpoint = await t
        .http()
        .post('/api/v2/webhooks/endpoints')
        .set('X-API-Key', acc.key)
        .send({ url: 'http://127.0.0.1:9/hook', events: ['message.*'] });
      expect(endpoint.status).toBe(201);
      const sink = t.app.get<EventSink>(EVENT_SINK);
      const recorded = jest.spyOn(sink, 'record');
      const id = await sentId(t, acc, sms());
      await intake.accept([receipt(`sbx_${id}`, 'read', { providerStatus: 'ack 3' })]);
      const m = await get(t, acc, id);
      expect(m).toMatchObject({ status: 'read', deliveredAt: expect.any(String), readAt: expect.any(String) });
      expect(m.statusHistory).toEqual([
        api('queued'),
        api('sent'),
        provider('delivered', 'ack 3'),
        provider('read', 'ack 3'),
      ]);
      const events = recorded.mock.calls.flatMap(([, evs]) => evs).filter((e) => e.data.id === id);
      expect(events.map((e) => [e.type, e.data.sequence])).toEqual([
        ['message.sent', 2],
        ['message.delivered', 3],
        ['message.read', 4],
      ]);
      expect(events[2].data).toMatchObject({ id, status: 'read', sequence: 4, deliveredAt: m.deliveredAt });
      // An account without endpoints: its moves leave their history, but no event is built for them.
      const quiet = await t.createAccount({ walletBalance: 1000, freeMessages: 0 });
      const quietId = await sentId(t, quiet, sms());
      await intake.accept([receipt(`sbx_${quietId}`, 'delivered')]);
      expect((await get(t, quiet, quietId)).statusHistory).toEqual([
        api('queued'),
        api('sent'),
        provider('delivered', 'DELIVERED'),
      ]);
      expect(recorded.mock.calls.flatMap(([, evs]) => evs).filter((e) => e.accountId === quiet.id)).toEqual([]);
      recorded.mockRestore();

      await intake.accept([
        receipt(`sbx_${id}`, 'delivered'),
        receipt(`sbx_${id}`, 'read'),
        receipt(`sbx_${id}`, 'failed', { errorCode: 'UNDELIVERED' }),
        receipt(`sbx_${id}`, 'sent'),
      ]);
      const again = await get(t, acc, id);
      expect(again).toEqual(m);
    });

    it('one batch of receipts for many messages costs a fixed number of statements, in order per message', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) ids.push(await sentId(t, acc, sms()));
      const uow = t.app.get(UnitOfWork);
      const before = uow.statements;
      await intake.accept(ids.flatMap((id) => [receipt(`sbx_${id}`, 'delivered'), receipt(`sbx_${id}`, 'read')]));
      expect(uow.statements - before).toBeLessThanOrEqual(8);
      for (const id of [ids[0], ids[29]]) {
        const m = await get(t, acc, id);
        expect(m.statusHistory).toEqual([
          api('queued'),
          api('sent'),
          provider('delivered', 'DELIVERED'),
          provider('read', 'READ'),
        ]);
      }
    });

    it('a failure receipt moves sent to failed with its codes; later receipts change nothing; no refund', async () => {
      const id = await sentId(t, acc, sms());
      const before = await wallet(t, acc);
      await intake.accept([
        receipt(`sbx_${id}`, 'failed', { providerStatus: 'EXPIRED', errorCode: 'EXPIRED', providerErrorCode: '00B' }),
      ]);
      await intake.accept([receipt(`sbx_${id}`, 'delivered')]);
      const m = await get(t, acc, id);
      expect(m).toMatchObject({
        status: 'failed',
        errorCode: 'EXPIRED',
        providerErrorCode: '00B',
        cost: 5,
        deliveredAt: null,
      });
      expect(m.statusHistory).toEqual([api('queued'), api('sent'), provider('failed', 'EXPIRED', 'EXPIRED')]);
      expect(await wallet(t, acc)).toBe(before);
    });

    /** A message paid and recorded but not sent yet (scheduled a day ahead), marked sent by the pipeline's recorder as a provider would answer. */
    const recordSent = async (providerMessageIds: string[]) => {
      const id = await sentId(t, acc, sms(PHONE, { scheduleAt: new Date(Date.now() + 86_400_000).toISOString() }));
      const mark = { id, providerMessageId: providerMessageIds[0], providerMessageIds };
      const out = await t.app
        .get(OutcomeRecorder)
        .sent(
          accountIdOf(acc.id),
          mark,
          { to: PHONE, channel: 'local_sms' },
          { source: 'wallet', amount: 5, units: 1 },
        );
      expect(out.kind).toBe('sent');
      return id;
    };

    it('a receipt that arrives before the message is recorded is kept and applied when it is', async () => {
      const pid = `early-${Date.now()}`;
      await intake.accept([receipt(pid, 'delivered', { providerStatus: 'DELIVRD' })]);
      const id = await recordSent([pid]);
      const m = await get(t, acc, id);
      expect(m.status).toBe('delivered');
      expect(m.statusHistory).toEqual([api('scheduled'), api('sent'), provider('delivered', 'DELIVRD')]);
    });

    it('a multi-part message is delivered only when every part is, failed when any part fails', async () => {
      const p = `mp-${Date.now()}`;
      const id = await recordSent([`${p}-1`, `${p}-2`]);
      await intake.accept([receipt(`${p}-1`, 'delivered')]);
      expect((await get(t, acc, id)).status).toBe('sent');
      await intake.accept([receipt(`${p}-1`, 'delivered'), receipt(`${p}-2`, 'delivered')]);
      expect((await get(t, acc, id)).status).toBe('delivered');

      const q = `mq-${Date.now()}`;
      const other = await recordSent([`${q}-1`, `${q}-2`]);
      await intake.accept([
        receipt(`${q}-1`, 'delivered'),
        receipt(`${q}-2`, 'failed', { providerStatus: 'UNDELIV', errorCode: 'UNDELIVERED', providerErrorCode: '001' }),
      ]);
      expect(await get(t, acc, other)).toMatchObject({
        status: 'failed',
        errorCode: 'UNDELIVERED',
        providerErrorCode: '001',
      });
    });

    it('two replicas applying the two parts of one message at the same moment: it ends delivered, once', async () => {
      // (Two apps on one embedded database in one process would block each other's synchronous driver:
      // there the second intake is the same app's, whose concurrent units the gate serialises.)
      const concurrent = t.app.get(UnitOfWork).capabilities.concurrentWrites;
      const other = concurrent ? await start({ SCHEDULERS_ENABLED: 'false' }, t.databaseUrl) : t;
      try {
        for (let round = 0; round < 3; round++) {
          const p = `rp-${round}-${Date.now()}`;
          const id = await recordSent([`${p}-1`, `${p}-2`]);
          await Promise.all([
            intake.accept([receipt(`${p}-1`, 'delivered')]),
            other.app.get<ReceiptIntake>(RECEIPT_INTAKE).accept([receipt(`${p}-2`, 'delivered')]),
          ]);
          const m = await get(t, acc, id);
          expect(m.statusHistory.map((h: { status: string }) => h.status)).toEqual(['scheduled', 'sent', 'delivered']);
        }
      } finally {
        if (other !== t) {
          await other.close({ keepDatabase: true });
          apps.splice(apps.indexOf(other), 1);
        }
      }
    });

    it('GET /messages?order=updated&updatedSince= pages through changes oldest first, each once', async () => {
      const own = await t.createAccount({ walletBalance: 1000 });
      const ids = [await sentId(t, own, sms()), await sentId(t, own, sms()), await sentId(t, own, sms())];
      const since = new Date().toISOString();
      await waitFor(async () => Date.now() > Date.parse(since), { what: 'clock past since' });
      await intake.accept([receipt(`sbx_${ids[0]}`, 'delivered')]);
      await intake.accept([receipt(`sbx_${ids[2]}`, 'delivered')]);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const q: string = `/api/v2/messages?order=updated&limit=1&updatedSince=${encodeURIComponent(since)}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const res = await t.http().get(q).set('X-API-Key', own.key);
        expect(res.status).toBe(200);
        seen.push(...res.body.data.messages.map((m: { id: string }) => m.id));
        cursor = res.body.data.nextCursor;
      } while (cursor);
      expect(seen).toEqual([ids[0], ids[2]]);
      const all = await t.http().get('/api/v2/messages?order=updated&limit=2').set('X-API-Key', own.key);
      expect(all.body.data.messages.map((m: { id: string }) => m.id)).toEqual([ids[1], ids[0]]);
      // A cursor of one order is not taken by the other.
      const wrong = await t
        .http()
        .get(`/api/v2/messages?limit=2&cursor=${encodeURIComponent(all.body.data.nextCursor)}`)
        .set('X-API-Key', own.key);
      expect(wrong.status).toBe(400);
      expect(wrong.body.code).toBe('VALIDATION_ERROR');
      const bad = await t.http().get('/api/v2/messages?updatedSince=yesterday').set('X-API-Key', own.key);
      expect([bad.status, bad.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    });
  });

  it('a restart in the middle: due sandbox receipts, kept receipts and undelivered events survive; the next process applies and delivers each once', async () => {
    const receiver = await startReceiver();
    try {
      // The first process sends and keeps receipts but runs no loop: every receipt and event delivery is still due when it stops.
      const env = { ...FAST_RECEIPTS, SANDBOX_DELIVERED_AFTER_MS: '100', WEBHOOK_DELIVERY_INTERVAL_MS: '20' };
      const a = await start({ ...env, SCHEDULERS_ENABLED: 'false' });
      const acc = await a.createAccount({ walletBalance: 1000 });
      const ep = await a
        .http()
        .post('/api/v2/webhooks/endpoints')
        .set('X-API-Key', acc.key)
        .send({ url: receiver.url, events: ['message.*'] });
      expect(ep.status).toBe(201);
      const id = await sentId(a, acc, sms());
      const pid = `restart-${Date.now()}`;
      await a.app.get<ReceiptIntake>(RECEIPT_INTAKE).accept([receipt(pid, 'delivered')]);
      expect((await get(a, acc, id)).status).toBe('sent');
      await a.close({ keepDatabase: true });
      apps.splice(apps.indexOf(a), 1);
      expect(receiver.calls).toHaveLength(0);

      const b = await start(env, a.databaseUrl);
      await statusOf(b, acc, id, 'delivered');
      const scheduled = await sentId(
        b,
        acc,
        sms(PHONE, { scheduleAt: new Date(Date.now() + 86_400_000).toISOString() }),
      );
      await b.app
        .get(OutcomeRecorder)
        .sent(
          accountIdOf(acc.id),
          { id: scheduled, providerMessageId: pid },
          { to: PHONE, channel: 'local_sms' },
          { source: 'wallet', amount: 5, units: 1 },
        );
      expect((await get(b, acc, scheduled)).status).toBe('delivered');
      expect((await get(b, acc, id)).statusHistory).toEqual([
        api('queued'),
        api('sent'),
        provider('delivered', 'delivered'),
      ]);
      // The event written by the first process (message.sent) and the one its receipt caused in the second (message.delivered): each delivered once, verified.
      const events = (
        await waitFor(
          async () => {
            const mine = receiver.calls.filter((c) => (c.body as { data?: { id?: string } }).data?.id === id);
            return mine.length >= 2 ? mine : null;
          },
          { what: 'both events of the first message' },
        )
      ).map(
        (c) =>
          new Webhook(ep.body.data.endpoint.secret as string).verify(c.raw, {
            'webhook-id': String(c.headers['webhook-id']),
            'webhook-timestamp': String(c.headers['webhook-timestamp']),
            'webhook-signature': String(c.headers['webhook-signature']),
          }) as { type: string },
      );
      expect(events.map((e) => e.type).sort()).toEqual(['message.delivered', 'message.sent']);
      await waitFor(
        async () =>
          receiver.calls.filter((c) => (c.body as { data?: { id?: string } }).data?.id === scheduled).length >= 2 ||
          null,
        { what: 'events of the second message' },
      );
      const ids = receiver.calls.map((c) => String(c.headers['webhook-id']));
      expect(new Set(ids).size).toBe(ids.length);
    } finally {
      await receiver.close();
    }
  });
});
