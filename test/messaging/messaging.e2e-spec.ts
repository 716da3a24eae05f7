import { DataSource } from 'typeorm';
import { CursorCodec } from '../../src/common/cursor';
import { TestAccount, TestApp } from '../support/app';
import { PHONE, useMessagingApp } from '../support/messaging-helpers';

// Also: messaging-faults.e2e-spec.ts (sandbox faults), messaging-pipeline.e2e-spec.ts (pipeline contract used by bulk).
describe('Messaging: send, log, sandbox (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;
  const { send, sms, account, delivered } = useMessagingApp(
    (app) => (t = app),
    (a) => (acc = a),
  );

  describe('channels on the sandbox', () => {
    it('local_sms: 201 sent, normalised E.164, debited, logged, recorded by the sandbox', async () => {
      const res = await send(sms('0501234567'));
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        success: true,
        data: {
          messages: [
            {
              id: expect.stringMatching(/^msg_/),
              to: PHONE,
              channel: 'local_sms',
              purpose: 'transactional',
              status: 'sent',
              cost: 5,
              encoding: 'gsm7',
              segments: 1,
              livemode: true,
            },
          ],
        },
      });
      expect((await account()).walletBalance).toBe(100_000 - 5);
      const id = res.body.data.messages[0].id;
      const got = await t.http().get(`/api/v2/messages/${id}`).set('X-API-Key', acc.key);
      expect(got.status).toBe(200);
      expect(got.body.data).toMatchObject({
        id,
        to: PHONE,
        channel: 'local_sms',
        status: 'sent',
        cost: 5,
        paidFrom: 'wallet',
        sender: 'MsgService',
        providerMessageId: `sbx_${id}`,
        errorCode: null,
      });
      const d = await delivered('&channel=local_sms');
      expect(d).toEqual([
        {
          id: expect.any(String),
          messageId: id,
          accountId: acc.id,
          channel: 'local_sms',
          to: PHONE,
          sender: 'MsgService',
          text: 'Hello',
          subject: null,
          bulkJobId: null,
          rowIndex: null,
          deliveredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        },
      ]);
    });

    it('chatapp (official): 201 sent', async () => {
      const res = await send({ to: PHONE, channel: 'chatapp', messageType: 'free_text', content: { text: 'Hi chat' } });
      expect(res.status).toBe(201);
      expect(res.body.data.messages[0]).toMatchObject({ to: PHONE, channel: 'chatapp', status: 'sent', cost: 10 });
      expect((await delivered('&channel=chatapp'))[0]).toMatchObject({ to: PHONE, text: 'Hi chat' });
    });

    it('email: lowercased address, subject and text delivered', async () => {
      const res = await send({
        to: 'Jane.Doe@Example.COM',
        channel: 'email',
        messageType: 'free_text',
        content: { subject: 'Hi', text: 'Body' },
      });
      expect(res.status).toBe(201);
      expect(res.body.data.messages[0]).toMatchObject({
        to: 'jane.doe@example.com',
        channel: 'email',
        status: 'sent',
        cost: 1,
      });
      expect((await delivered('&channel=email'))[0]).toMatchObject({
        to: 'jane.doe@example.com',
        text: 'Body',
        subject: 'Hi',
      });
    });

    for (const [channel, kind, price] of [
      ['chatapp_web', 'web', 3],
      ['messaging_bot', 'bot', 2],
    ] as const) {
      it(`${channel}: chatId + conversationContext of a ready session`, async () => {
        const s = await t.admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`).send({
          name: `s-${channel}`,
          status: 'ready',
          kind,
          chats: [{ chatId: 'c1@c.us', kind: 'direct', title: 'C1' }],
        });
        expect(s.status).toBe(201);
        const body = {
          channel,
          messageType: 'free_text',
          content: { text: 'yo' },
          chatId: 'c1@c.us',
          conversationContext: { moduleType: channel, accountId: `s-${channel}`, chatId: 'c1@c.us' },
        };
        const res = await send(body);
        expect(res.status).toBe(201);
        expect(res.body.data.messages[0]).toMatchObject({ to: 'c1@c.us', channel, status: 'sent', cost: price });
        expect((await delivered(`&channel=${channel}`))[0]).toMatchObject({ to: 'c1@c.us', text: 'yo' });
        // A session that is not ready: 409 SESSION_NOT_READY, nothing debited.
        await t
          .admin('patch', `/admin/v1/accounts/${acc.id}/web-sessions/s-${channel}`)
          .send({ status: 'starting' })
          .expect(200);
        const before = (await account()).walletBalance;
        const notReady = await send(body);
        expect(notReady.status).toBe(409);
        expect(notReady.body.code).toBe('SESSION_NOT_READY');
        expect((await account()).walletBalance).toBe(before);
        const unknown = await send({
          ...body,
          conversationContext: { ...body.conversationContext, accountId: 'nope' },
        });
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
      const paid = await Promise.all(
        ids.map(async (id) => (await t.http().get(`/api/v2/messages/${id}`).set('X-API-Key', a.key)).body.data),
      );
      expect(paid.map((m) => [m.paidFrom, m.cost])).toEqual([
        ['free', 0],
        ['quota', 0],
        ['wallet', 5],
      ]);
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

  describe('message log', () => {
    it('lists newest first with cursor pagination and filters; other accounts get 404', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await send(sms())).body.data.messages[0].id);
      const failed = (await send(sms('+966500000000'))).body.data.messages[0].id;
      const email = (
        await send({ to: 'x@y.io', channel: 'email', messageType: 'free_text', content: { subject: 's', text: 't' } })
      ).body.data.messages[0].id;
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res: {
          status: number;
          body: { data: { messages: { id: string }[]; nextCursor: string | null; hasMore: boolean } };
        } = await t
          .http()
          .get(`/api/v2/messages?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
          .set('X-API-Key', acc.key);
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
      expect(
        (await t.http().get('/api/v2/messages?bulkJobId=job_none').set('X-API-Key', acc.key)).body.data.messages,
      ).toEqual([]);
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
      const cross = await t
        .http()
        .get(`/api/v2/messages?cursor=${encodeURIComponent(foreignCursor.body.data.nextCursor)}`)
        .set('X-API-Key', other.key);
      expect(cross.status).toBe(400);
    });

    it('lists by creation time, not by id; a cursor holding only the id (before 2026-11-29) still pages on', async () => {
      const owner = await t.createAccount();
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) ids.push((await send(sms(), owner.key)).body.data.messages[0].id as string);
      // The newest id, created before the others (as a message another replica wrote, or a takeover's).
      await t.app.get(DataSource).query('UPDATE messages SET created_at = created_at - 60000 WHERE id = ?', [ids[3]]);
      const list = async (query: string) => {
        const res = await t.http().get(`/api/v2/messages?${query}`).set('X-API-Key', owner.key);
        expect(res.status).toBe(200);
        return res.body.data as { messages: { id: string }[]; nextCursor: string | null };
      };
      const first = await list('limit=2');
      expect(first.messages.map((m) => m.id)).toEqual([ids[2], ids[1]]);
      const rest = await list(`limit=2&cursor=${encodeURIComponent(first.nextCursor ?? '')}`);
      expect(rest.messages.map((m) => m.id)).toEqual([ids[0], ids[3]]);
      expect(rest.nextCursor).toBeNull();

      const old = t.app.get(CursorCodec).encode(`messages:${owner.id}`, { id: ids[1] });
      expect((await list(`cursor=${encodeURIComponent(old)}`)).messages.map((m) => m.id)).toEqual([ids[0], ids[3]]);
      // An id-only cursor whose message is gone (purged) or another account's: 400, never a wrong page.
      const foreign = (await send(sms())).body.data.messages[0].id as string;
      for (const id of ['msg_gone', foreign]) {
        const gone = t.app.get(CursorCodec).encode(`messages:${owner.id}`, { id });
        const res = await t
          .http()
          .get(`/api/v2/messages?cursor=${encodeURIComponent(gone)}`)
          .set('X-API-Key', owner.key);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_ERROR');
      }
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
