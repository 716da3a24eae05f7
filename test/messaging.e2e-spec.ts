import type { SendOutcome } from '../src/messaging/send-outcome';
import { SendPipeline } from '../src/messaging/send-pipeline';
import { SendPacer, WindowSender } from '../src/messaging/window-sender';
import type { OutboundMessage } from '../src/providers/provider.types';
import { SandboxProvider } from '../src/providers/sandbox/sandbox.provider';
import { MessageValidator } from '../src/messaging/validation/message-validator';
import { createTestApp, TestAccount, TestApp } from './support/app';

const PHONE = '+966501234567';

describe('Messaging: send, log, sandbox (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(async () => {
    acc = await t.createAccount({ walletBalance: 100_000 });
  });

  const send = (body: Record<string, unknown>, key = acc.key) => t.http().post('/api/v2/messages/send').set('X-API-Key', key).send(body);
  const sms = (to: unknown = PHONE, extra: Record<string, unknown> = {}) => ({ to, channel: 'local_sms', messageType: 'free_text', content: { text: 'Hello' }, ...extra });
  const account = async () => (await t.http().get('/api/v2/account').set('X-API-Key', acc.key)).body.data;
  const delivered = async (q: string) => (await t.admin('get', `/admin/v1/sandbox/messages?accountId=${acc.id}${q}`)).body.data.messages as Record<string, unknown>[];

  describe('channels on the sandbox', () => {
    it('local_sms: 201 sent, normalised E.164, debited, logged, recorded by the sandbox', async () => {
      const res = await send(sms('0501234567'));
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ success: true, data: { messages: [{ id: expect.stringMatching(/^msg_/), to: PHONE, channel: 'local_sms', status: 'sent', cost: 5, encoding: 'gsm7', segments: 1 }] } });
      expect((await account()).walletBalance).toBe(100_000 - 5);
      const id = res.body.data.messages[0].id;
      const got = await t.http().get(`/api/v2/messages/${id}`).set('X-API-Key', acc.key);
      expect(got.status).toBe(200);
      expect(got.body.data).toMatchObject({ id, to: PHONE, channel: 'local_sms', status: 'sent', cost: 5, paidFrom: 'wallet', sender: 'MsgService', providerMessageId: `sbx_${id}`, errorCode: null });
      const d = await delivered('&channel=local_sms');
      expect(d).toEqual([{ id: expect.any(String), messageId: id, accountId: acc.id, channel: 'local_sms', to: PHONE, sender: 'MsgService', text: 'Hello', subject: null, bulkJobId: null, rowIndex: null, deliveredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) }]);
    });

    it('chatapp (official): 201 sent', async () => {
      const res = await send({ to: PHONE, channel: 'chatapp', messageType: 'free_text', content: { text: 'Hi chat' } });
      expect(res.status).toBe(201);
      expect(res.body.data.messages[0]).toMatchObject({ to: PHONE, channel: 'chatapp', status: 'sent', cost: 10 });
      expect((await delivered('&channel=chatapp'))[0]).toMatchObject({ to: PHONE, text: 'Hi chat' });
    });

    it('email: lowercased address, subject and text delivered', async () => {
      const res = await send({ to: 'Jane.Doe@Example.COM', channel: 'email', messageType: 'free_text', content: { subject: 'Hi', text: 'Body' } });
      expect(res.status).toBe(201);
      expect(res.body.data.messages[0]).toMatchObject({ to: 'jane.doe@example.com', channel: 'email', status: 'sent', cost: 1 });
      expect((await delivered('&channel=email'))[0]).toMatchObject({ to: 'jane.doe@example.com', text: 'Body', subject: 'Hi' });
    });

    for (const [channel, kind, price] of [['chatapp_web', 'web', 3], ['messaging_bot', 'bot', 2]] as const) {
      it(`${channel}: chatId + conversationContext of a ready session`, async () => {
        const s = await t.admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`).send({ name: `s-${channel}`, status: 'ready', kind, chats: [{ chatId: 'c1@c.us', kind: 'direct', title: 'C1' }] });
        expect(s.status).toBe(201);
        const body = { channel, messageType: 'free_text', content: { text: 'yo' }, chatId: 'c1@c.us', conversationContext: { moduleType: channel, accountId: `s-${channel}`, chatId: 'c1@c.us' } };
        const res = await send(body);
        expect(res.status).toBe(201);
        expect(res.body.data.messages[0]).toMatchObject({ to: 'c1@c.us', channel, status: 'sent', cost: price });
        expect((await delivered(`&channel=${channel}`))[0]).toMatchObject({ to: 'c1@c.us', text: 'yo' });
        // A session that is not ready: 409 SESSION_NOT_READY, nothing debited.
        await t.admin('patch', `/admin/v1/accounts/${acc.id}/web-sessions/s-${channel}`).send({ status: 'starting' }).expect(200);
        const before = (await account()).walletBalance;
        const notReady = await send(body);
        expect(notReady.status).toBe(409);
        expect(notReady.body.code).toBe('SESSION_NOT_READY');
        expect((await account()).walletBalance).toBe(before);
        const unknown = await send({ ...body, conversationContext: { ...body.conversationContext, accountId: 'nope' } });
        expect(unknown.status).toBe(404);
      });
    }

    it('sandbox rejection: numbers ending 0000 -> failed PROVIDER_REJECTED, refunded', async () => {
      const res = await send(sms('+966500000000'));
      expect(res.status).toBe(201);
      expect(res.body.data.messages[0]).toMatchObject({ status: 'failed', cost: 0, errorCode: 'PROVIDER_REJECTED' });
      expect((await account()).walletBalance).toBe(100_000);
      const got = await t.http().get(`/api/v2/messages/${res.body.data.messages[0].id}`).set('X-API-Key', acc.key);
      expect(got.body.data).toMatchObject({ status: 'failed', errorCode: 'PROVIDER_REJECTED', cost: 0 });
      expect(await delivered('')).toEqual([]);
    });
  });

  describe('batch', () => {
    it('100 recipients: all sent, paid once each', async () => {
      const to = Array.from({ length: 100 }, (_, i) => `+9665${String(51000001 + i)}`);
      const res = await send(sms(to));
      expect(res.status).toBe(201);
      expect(res.body.data.messages).toHaveLength(100);
      expect(res.body.data.messages.every((m: { status: string }) => m.status === 'sent')).toBe(true);
      expect(res.body.data.messages.map((m: { to: string }) => m.to)).toEqual(to);
      expect((await account()).walletBalance).toBe(100_000 - 500);
      expect(await delivered('&limit=1000')).toHaveLength(100);
    });

    it('101 recipients: 400 VALIDATION_ERROR, nothing sent', async () => {
      const to = Array.from({ length: 101 }, (_, i) => `+9665${String(51000001 + i)}`);
      const res = await send(sms(to));
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.error).toMatch(/to/);
      expect(await delivered('')).toEqual([]);
      expect((await account()).walletBalance).toBe(100_000);
    });

    it('one invalid recipient rejects the batch, naming its index', async () => {
      const res = await send(sms([PHONE, 'nonsense', '+966501111111']));
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('INVALID_RECIPIENT');
      expect(res.body.error).toMatch(/^to\[1\]/);
      expect(await delivered('')).toEqual([]);
    });

    it('402 when the balance covers only part of the batch: nothing sent, nothing taken', async () => {
      const poor = await t.createAccount({ walletBalance: 12, freeMessages: 1 });
      const res = await send(sms([PHONE, '+966501111111', '+966502222222', '+966503333333']), poor.key);
      expect(res.status).toBe(402);
      expect(res.body.code).toBe('INSUFFICIENT_BALANCE');
      const a = (await t.http().get('/api/v2/account').set('X-API-Key', poor.key)).body.data;
      expect(a).toMatchObject({ walletBalance: 12, freeMessages: 1 });
      expect((await t.admin('get', `/admin/v1/sandbox/messages?accountId=${poor.id}`)).body.data.messages).toEqual([]);
    });
  });

  describe('billing', () => {
    it('pays from free messages, then plan quota, then wallet', async () => {
      const a = await t.createAccount({ walletBalance: 5, freeMessages: 1, messageQuota: 1, messagesUsed: 0 });
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await send(sms(), a.key);
        expect(r.status).toBe(201);
        ids.push(r.body.data.messages[0].id);
      }
      const paid = await Promise.all(ids.map(async (id) => (await t.http().get(`/api/v2/messages/${id}`).set('X-API-Key', a.key)).body.data));
      expect(paid.map((m) => [m.paidFrom, m.cost])).toEqual([['free', 0], ['quota', 0], ['wallet', 5]]);
      const r = await send(sms(), a.key);
      expect(r.status).toBe(402);
      expect(r.body.code).toBe('INSUFFICIENT_BALANCE');
      const view = (await t.http().get('/api/v2/account').set('X-API-Key', a.key)).body.data;
      expect(view).toMatchObject({ walletBalance: 0, freeMessages: 0, plan: { messageQuota: 1, messagesUsed: 1 } });
    });

    it('403 SUBSCRIPTION_INACTIVE and 403 FORBIDDEN for an unverified phone or missing permission', async () => {
      const inactive = await t.createAccount({ subscriptionActive: false });
      const r1 = await send(sms(), inactive.key);
      expect(r1.status).toBe(403);
      expect(r1.body.code).toBe('SUBSCRIPTION_INACTIVE');
      const unverified = await t.createAccount({ phoneVerified: false });
      const r2 = await send(sms(), unverified.key);
      expect(r2.status).toBe(403);
      expect(r2.body.code).toBe('FORBIDDEN');
      const reader = await t.memberKey(acc.id, ['messages:read']);
      const r3 = await send(sms(), reader);
      expect(r3.status).toBe(403);
      expect(r3.body.code).toBe('FORBIDDEN');
      expect(await delivered('')).toEqual([]);
    });
  });

  describe('sandbox faults', () => {
    afterEach(async () => {
      await t.admin('delete', '/admin/v1/sandbox/faults').expect(200);
    });

    it('rate_limit -> 429 PROVIDER_RATE_LIMITED with retryAfterSeconds, refunded', async () => {
      await t.admin('post', '/admin/v1/sandbox/faults').send({ kind: 'rate_limit', count: 1, accountId: acc.id }).expect(201);
      const res = await send(sms());
      expect(res.status).toBe(429);
      expect(res.body).toMatchObject({ success: false, code: 'PROVIDER_RATE_LIMITED', retryAfterSeconds: 1 });
      expect((await account()).walletBalance).toBe(100_000);
      const next = await send(sms());
      expect(next.status).toBe(201);
    });

    it('unavailable -> 503 PROVIDER_UNAVAILABLE, balance refunded, message failed in the log', async () => {
      await t.admin('post', '/admin/v1/sandbox/faults').send({ channel: 'local_sms', kind: 'unavailable', count: 1, accountId: acc.id }).expect(201);
      const res = await send(sms());
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('PROVIDER_UNAVAILABLE');
      expect((await account()).walletBalance).toBe(100_000);
      const log = await t.http().get('/api/v2/messages').set('X-API-Key', acc.key);
      expect(log.body.data.messages).toEqual([expect.objectContaining({ status: 'failed', errorCode: 'PROVIDER_UNAVAILABLE', cost: 0 })]);
      expect(await delivered('')).toEqual([]);
    });

    it('a channel fault leaves other channels alone', async () => {
      await t.admin('post', '/admin/v1/sandbox/faults').send({ channel: 'email', kind: 'unavailable', count: 1, accountId: acc.id }).expect(201);
      expect((await send(sms())).status).toBe(201);
      expect((await send({ to: 'a@b.co', channel: 'email', messageType: 'free_text', content: { subject: 's', text: 't' } })).status).toBe(503);
    });

    it('reject -> 201 with a failed message PROVIDER_REJECTED', async () => {
      await t.admin('post', '/admin/v1/sandbox/faults').send({ kind: 'reject', count: 1, accountId: acc.id }).expect(201);
      const res = await send(sms());
      expect(res.status).toBe(201);
      expect(res.body.data.messages[0]).toMatchObject({ status: 'failed', errorCode: 'PROVIDER_REJECTED', cost: 0 });
    });

    it('timeout (extension) -> 503 PROVIDER_UNAVAILABLE after PROVIDER_TIMEOUT_MS', async () => {
      const fast = await createTestApp({ env: { PROVIDER_TIMEOUT_MS: '200' } });
      try {
        const a = await fast.createAccount();
        await fast.admin('post', '/admin/v1/sandbox/faults').send({ kind: 'timeout', count: 1, accountId: a.id }).expect(201);
        const res = await fast.http().post('/api/v2/messages/send').set('X-API-Key', a.key).send(sms());
        expect(res.status).toBe(503);
        expect(res.body.code).toBe('PROVIDER_UNAVAILABLE');
        expect((await fast.http().get('/api/v2/account').set('X-API-Key', a.key)).body.data.walletBalance).toBe(100_000);
      } finally {
        await fast.close();
      }
    });

    it('a batch whose first message hits a provider error answers with that error; the rest are failed and refunded', async () => {
      await t.admin('post', '/admin/v1/sandbox/faults').send({ kind: 'unavailable', count: 1, accountId: acc.id }).expect(201);
      const all = await send(sms([PHONE, '+966501111111', '+966502222222']));
      expect(all.status).toBe(503);
      expect(all.body.code).toBe('PROVIDER_UNAVAILABLE');
      expect((await account()).walletBalance).toBe(100_000);
      const log = (await t.http().get('/api/v2/messages').set('X-API-Key', acc.key)).body.data.messages;
      expect(log).toHaveLength(3);
      expect(log.every((m: { status: string; errorCode: string; cost: number }) => m.status === 'failed' && m.errorCode === 'PROVIDER_UNAVAILABLE' && m.cost === 0)).toBe(true);
      expect(await delivered('')).toEqual([]);
    });

    it('a global fault hits the next `count` calls of any account and channel; DELETE clears what is left', async () => {
      const other = await t.createAccount();
      const fault = await t.admin('post', '/admin/v1/sandbox/faults').send({ kind: 'rate_limit', count: 2 });
      expect(fault.status).toBe(201);
      expect(fault.body.data.fault).toEqual({ id: expect.any(String), channel: null, accountId: null, kind: 'rate_limit', count: 2, delayMs: null });
      expect((await send(sms())).status).toBe(429);
      expect((await send({ to: 'a@b.co', channel: 'email', messageType: 'free_text', content: { subject: 's', text: 't' } }, other.key)).status).toBe(429);
      expect((await send(sms())).status).toBe(201);
      await t.admin('post', '/admin/v1/sandbox/faults').send({ kind: 'unavailable', count: 5 }).expect(201);
      const cleared = await t.admin('delete', '/admin/v1/sandbox/faults');
      expect(cleared.status).toBe(200);
      expect(cleared.body).toEqual({ success: true, data: { cleared: 1 } });
      expect((await send(sms())).status).toBe(201);
    });

    it('faults and deliveries are shared by replicas: a fault posted to one is consumed once by another', async () => {
      const replica = await createTestApp({ databaseUrl: t.databaseUrl, env: { SCHEDULERS_ENABLED: 'false', SANDBOX_FAULT_REFRESH_MS: '0' } });
      try {
        await t.admin('post', '/admin/v1/sandbox/faults').send({ kind: 'unavailable', count: 1, accountId: acc.id }).expect(201);
        const viaReplica = await replica.http().post('/api/v2/messages/send').set('X-API-Key', acc.key).send(sms());
        expect(viaReplica.status).toBe(503);
        const again = await replica.http().post('/api/v2/messages/send').set('X-API-Key', acc.key).send(sms());
        expect(again.status).toBe(201);
        expect((await send(sms())).status).toBe(201);
        // Each replica's admin API sees every delivery.
        const seen = (await replica.admin('get', `/admin/v1/sandbox/messages?accountId=${acc.id}`)).body.data.messages;
        expect(seen).toHaveLength(2);
        expect(await delivered('')).toEqual(seen);
      } finally {
        await replica.close({ keepDatabase: true });
      }
    });

    it('admin API validates its input', async () => {
      const bad = await t.admin('post', '/admin/v1/sandbox/faults').send({ kind: 'explode', count: 1 });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('VALIDATION_ERROR');
      expect((await t.http().get('/admin/v1/sandbox/messages')).status).toBe(401);
    });
  });

  describe('message log', () => {
    it('lists newest first with cursor pagination and filters; other accounts get 404', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await send(sms())).body.data.messages[0].id);
      const failed = (await send(sms('+966500000000'))).body.data.messages[0].id;
      const email = (await send({ to: 'x@y.io', channel: 'email', messageType: 'free_text', content: { subject: 's', text: 't' } })).body.data.messages[0].id;
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res: { status: number; body: { data: { messages: { id: string }[]; nextCursor: string | null; hasMore: boolean } } } = await t.http().get(`/api/v2/messages?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`).set('X-API-Key', acc.key);
        expect(res.status).toBe(200);
        seen.push(...res.body.data.messages.map((m) => m.id));
        cursor = res.body.data.nextCursor;
        expect(res.body.data.hasMore).toBe(cursor !== null);
      } while (cursor);
      expect(seen).toEqual([...ids, failed, email].sort().reverse());
      const onlyFailed = await t.http().get('/api/v2/messages?status=failed').set('X-API-Key', acc.key);
      expect(onlyFailed.body.data.messages.map((m: { id: string }) => m.id)).toEqual([failed]);
      const onlyEmail = await t.http().get('/api/v2/messages?channel=email').set('X-API-Key', acc.key);
      expect(onlyEmail.body.data.messages.map((m: { id: string }) => m.id)).toEqual([email]);
      expect((await t.http().get('/api/v2/messages?bulkJobId=job_none').set('X-API-Key', acc.key)).body.data.messages).toEqual([]);
      const bad = await t.http().get('/api/v2/messages?status=bogus').set('X-API-Key', acc.key);
      expect(bad.status).toBe(400);
      const tampered = await t.http().get('/api/v2/messages?cursor=abc.def').set('X-API-Key', acc.key);
      expect(tampered.status).toBe(400);
      expect(tampered.body.code).toBe('VALIDATION_ERROR');

      const other = await t.createAccount();
      const res404 = await t.http().get(`/api/v2/messages/${ids[0]}`).set('X-API-Key', other.key);
      expect(res404.status).toBe(404);
      expect(res404.body.code).toBe('NOT_FOUND');
      const foreignCursor = await t.http().get(`/api/v2/messages?limit=1`).set('X-API-Key', acc.key);
      const cross = await t.http().get(`/api/v2/messages?cursor=${encodeURIComponent(foreignCursor.body.data.nextCursor)}`).set('X-API-Key', other.key);
      expect(cross.status).toBe(400);
    });
  });

  describe('pipeline contract used by bulk (origin.messageId)', () => {
    const validated = async (accountId: string) => {
      const v = t.app.get(MessageValidator);
      return v.validate(v.createContext(accountId), sms(), { bulkRow: true });
    };

    it('the same messageId is sent and paid once; bulkJobId and rowIndex reach the log and the sandbox', async () => {
      const pipeline = t.app.get(SendPipeline);
      const msg = await validated(acc.id);
      const origin = { bulkJobId: 'job_test', rowIndex: 7, messageId: 'msg_fixed_for_row_7' };
      const first = await pipeline.send(acc.id, msg, origin);
      const again = await pipeline.send(acc.id, msg, origin);
      expect(first).toEqual({ id: 'msg_fixed_for_row_7', to: PHONE, channel: 'local_sms', status: 'sent', cost: 5, errorCode: null, providerMessageId: 'sbx_msg_fixed_for_row_7', encoding: 'gsm7', segments: 1 });
      expect(again).toEqual(first);
      expect((await account()).walletBalance).toBe(100_000 - 5);
      expect(await delivered('&bulkJobId=job_test')).toEqual([expect.objectContaining({ messageId: 'msg_fixed_for_row_7', bulkJobId: 'job_test', rowIndex: 7 })]);
      const log = await t.http().get('/api/v2/messages?bulkJobId=job_test').set('X-API-Key', acc.key);
      expect(log.body.data.messages).toEqual([expect.objectContaining({ id: 'msg_fixed_for_row_7', bulkJobId: 'job_test', rowIndex: 7, status: 'sent' })]);
    });

    it('a messageId whose send hit a provider error is paid and sent again on retry', async () => {
      const pipeline = t.app.get(SendPipeline);
      const msg = await validated(acc.id);
      await t.admin('post', '/admin/v1/sandbox/faults').send({ kind: 'unavailable', count: 1, accountId: acc.id }).expect(201);
      await expect(pipeline.send(acc.id, msg, { messageId: 'msg_retry_row' })).rejects.toMatchObject({ code: 'PROVIDER_UNAVAILABLE' });
      expect((await account()).walletBalance).toBe(100_000);
      const retried = await pipeline.send(acc.id, msg, { messageId: 'msg_retry_row' });
      expect(retried).toMatchObject({ id: 'msg_retry_row', status: 'sent', cost: 5 });
      expect((await account()).walletBalance).toBe(100_000 - 5);
      expect(await delivered('')).toHaveLength(1);
    });

    /** A pacer that never waits nor stops (pacing is unit-tested on a fake clock). */
    const unpaced: SendPacer = { before: async () => null, after: () => undefined };
    const kinds = (outcomes: SendOutcome[]) =>
      outcomes.map((o) => (o.kind === 'not_attempted' ? `${o.reason}${o.paid ? ' (paid)' : ''}` : o.kind === 'failed' ? `failed ${o.result.errorCode}` : o.result.status));
    const logged = async (key: string, jobId: string) =>
      ((await t.http().get(`/api/v2/messages?bulkJobId=${jobId}`).set('X-API-Key', key)).body.data.messages as { rowIndex: number; status: string; cost: number; errorCode: string | null }[])
        .sort((x, y) => x.rowIndex - y.rowIndex)
        .map((m) => [m.rowIndex, m.status, m.cost, m.errorCode]);

    it('sendWindow: pays what the balance covers in order, the rest not attempted and unpaid; a retry with the same ids sends nothing twice', async () => {
      const windows = t.app.get(WindowSender);
      const a = await t.createAccount({ walletBalance: 10, freeMessages: 1 });
      const msg = await validated(a.id);
      const items = [0, 1, 2, 3, 4].map((i) => ({ msg, origin: { bulkJobId: 'job_many', rowIndex: i, messageId: `msg_many_${a.id}_${i}` } }));
      const first = await windows.sendWindow(a.id, items, unpaced);
      expect(kinds(first)).toEqual(['sent', 'sent', 'sent', 'insufficient_balance', 'insufficient_balance']);
      expect(first.map((o) => (o.kind === 'sent' ? o.result.cost : null))).toEqual([0, 5, 5, null, null]);
      await t.admin('patch', `/admin/v1/accounts/${a.id}`).send({ walletBalance: 100 }).expect(200);
      const again = await windows.sendWindow(a.id, items, unpaced);
      expect(kinds(again)).toEqual(['sent', 'sent', 'sent', 'sent', 'sent']);
      expect((await t.http().get('/api/v2/account').set('X-API-Key', a.key)).body.data.walletBalance).toBe(90);
      const d = (await t.admin('get', `/admin/v1/sandbox/messages?accountId=${a.id}`)).body.data.messages;
      expect(d.map((x: { rowIndex: number }) => x.rowIndex)).toEqual([0, 1, 2, 3, 4]);
      expect(await logged(a.key, 'job_many')).toEqual([0, 1, 2, 3, 4].map((i) => [i, 'sent', i === 0 ? 0 : 5, null]));
    });

    it('sendWindow: a provider error fails that message (refunded); the later ones are not attempted, stay paid once, and the next window sends them without a second charge', async () => {
      const windows = t.app.get(WindowSender);
      const v = t.app.get(MessageValidator);
      const ok = await validated(acc.id);
      const rejected = await v.validate(v.createContext(acc.id), sms('+966500000000'), { bulkRow: true });
      const ids = [0, 1, 2, 3].map((i) => `msg_stop_${acc.id}_${i}`);
      const items = [ok, ok, rejected, ok].map((msg, i) => ({ msg, origin: { bulkJobId: 'job_stop', rowIndex: i, messageId: ids[i] } }));
      await t.admin('post', '/admin/v1/sandbox/faults').send({ kind: 'rate_limit', count: 1, accountId: acc.id }).expect(201);
      await t.admin('post', '/admin/v1/sandbox/faults').send({ kind: 'unavailable', count: 1, accountId: acc.id }).expect(201);
      // Window 1: a rate limit on the first call (kept paid and open), nothing else tried.
      const first = await windows.sendWindow(acc.id, items, unpaced);
      expect(kinds(first)).toEqual(['rate_limited (paid)', 'provider_stopped (paid)', 'provider_stopped (paid)', 'provider_stopped (paid)']);
      expect(first[0]).toMatchObject({ retryAfterMs: 1000 });
      expect((await account()).walletBalance).toBe(100_000 - 20);
      expect(await logged(acc.key, 'job_stop')).toEqual([[0, 'queued', 5, null], [1, 'queued', 5, null], [2, 'queued', 5, null], [3, 'queued', 5, null]]);
      // Window 2: the provider fails the first call (refunded), the rest waits again, still paid once.
      const second = await windows.sendWindow(acc.id, items, unpaced);
      expect(kinds(second)).toEqual(['failed PROVIDER_UNAVAILABLE', 'provider_stopped (paid)', 'provider_stopped (paid)', 'provider_stopped (paid)']);
      expect((await account()).walletBalance).toBe(100_000 - 15);
      // Window 3: the failed one is paid again (it never reached the provider), the others are sent as paid; the rejection is per message.
      const third = await windows.sendWindow(acc.id, items, unpaced);
      expect(kinds(third)).toEqual(['sent', 'sent', 'failed PROVIDER_REJECTED', 'sent']);
      expect(await logged(acc.key, 'job_stop')).toEqual([[0, 'sent', 5, null], [1, 'sent', 5, null], [2, 'failed', 0, 'PROVIDER_REJECTED'], [3, 'sent', 5, null]]);
      expect((await account()).walletBalance).toBe(100_000 - 15);
      expect((await delivered('&bulkJobId=job_stop')).map((d) => d.messageId)).toEqual([ids[0], ids[1], ids[3]]);
    });

    it('sandbox: concurrent deliveries are grouped, and a duplicate id among them is delivered once', async () => {
      const sandbox = t.app.get(SandboxProvider);
      const out = (i: number) => ({ messageId: `msg_group_${acc.id}_${i}`, accountId: acc.id, channel: 'local_sms' as const, to: '+966501234567', text: 'hi', bulkJobId: 'job_group', rowIndex: i });
      const sends = [0, 1, 2, 3, 4, 5, 6, 7, 2, 3].map((i) => sandbox.send(out(i) as OutboundMessage));
      const outcomes = await Promise.all(sends);
      expect(outcomes.map((o) => o.status)).toEqual(Array(10).fill('sent'));
      expect(outcomes[8]).toEqual(outcomes[2]);
      const d = (await t.admin('get', `/admin/v1/sandbox/messages?accountId=${acc.id}&bulkJobId=job_group`)).body.data.messages;
      expect(d.map((x: { rowIndex: number }) => x.rowIndex).sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    });

    it('SendPipeline throws INSUFFICIENT_BALANCE and SUBSCRIPTION_INACTIVE with nothing sent', async () => {
      const pipeline = t.app.get(SendPipeline);
      const poor = await t.createAccount({ walletBalance: 0 });
      await expect(pipeline.send(poor.id, await validated(poor.id))).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
      const inactive = await t.createAccount({ subscriptionActive: false });
      await expect(pipeline.send(inactive.id, await validated(inactive.id))).rejects.toMatchObject({ code: 'SUBSCRIPTION_INACTIVE' });
      expect((await t.admin('get', `/admin/v1/sandbox/messages?accountId=${poor.id}`)).body.data.messages).toEqual([]);
    });
  });

  it('OpenAPI documents the messaging routes (public document) and the sandbox routes (operator document)', async () => {
    const doc = (await t.http().get('/docs-json')).body;
    expect(doc.paths['/api/v2/messages/send'].post).toBeDefined();
    expect(doc.paths['/api/v2/messages'].get).toBeDefined();
    expect(doc.paths['/api/v2/messages/{id}'].get).toBeDefined();
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/admin/'))).toBe(false);
    const operator = (await t.http().get('/docs/admin-json')).body;
    expect(operator.paths['/admin/v1/sandbox/messages'].get).toBeDefined();
    expect(operator.paths['/admin/v1/sandbox/faults'].post).toBeDefined();
    expect(operator.paths['/admin/v1/sandbox/faults'].delete).toBeDefined();
  });
});
