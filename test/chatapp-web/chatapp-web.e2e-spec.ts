import { ApiError } from '../../src/common/errors';
import { WebSessionsService } from '../../src/chatapp-web/web-sessions.service';
import { WahaFake } from '../providers-fakes/waha-fake';
import { TestAccount, TestApp } from '../support/app';
import type { ChatView } from '../../src/chatapp-web/chats.service';
import { chatListing, startChatappWebApp } from '../support/chatapp-web-helpers';
import { expectError } from '../support/envelope';
import { accountIdOf } from '../../src/common/account-id';

describe('Chatapp web sessions and chats (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;
  let waha: WahaFake;

  beforeAll(async () => {
    ({ t, acc, waha } = await startChatappWebApp());
  });
  afterAll(async () => {
    await t.close();
    await waha.stop();
  });

  const { chats, collect } = chatListing(() => t);

  describe('admin web sessions', () => {
    it('creates a sandbox session with 120 generated chats', async () => {
      const res = await t
        .admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`)
        .send({ name: 'gen', status: 'starting' });
      expect(res.status).toBe(201);
      expect(res.body.data.webSession).toMatchObject({
        name: 'gen',
        kind: 'web',
        provider: 'sandbox',
        status: 'starting',
        chatCount: 120,
      });
      expect(res.body.data.webSession.hook).toBeUndefined();
    });

    it('refuses a duplicate name in the account (409 CONFLICT) but allows it in another account', async () => {
      const dup = await t
        .admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`)
        .send({ name: 'main', status: 'ready', chats: [] });
      expect(dup.status).toBe(409);
      expect(dup.body.code).toBe('CONFLICT');
      const other = await t.createAccount();
      const ok = await t
        .admin('post', `/admin/v1/accounts/${other.id}/web-sessions`)
        .send({ name: 'main', status: 'ready', chats: [] });
      expect(ok.status).toBe(201);
      expect(ok.body.data.webSession.chatCount).toBe(0);
    });

    it('validates the body and the account', async () => {
      const bad = await t
        .admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`)
        .send({ name: 'x', status: 'sleeping' });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('VALIDATION_ERROR');
      const badChat = await t
        .admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`)
        .send({ name: 'y', status: 'ready', chats: [{ chatId: 'a', kind: 'channel', title: 't' }] });
      expect(badChat.status).toBe(400);
      const dupChat = await t.admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`).send({
        name: 'z',
        status: 'ready',
        chats: [
          { chatId: 'a', kind: 'direct', title: 't' },
          { chatId: 'a', kind: 'group', title: 'u' },
        ],
      });
      expect(dupChat.status).toBe(400);
      expect(dupChat.body.error).toContain('chatId a');
      const noAccount = await t
        .admin('post', '/admin/v1/accounts/acc_missing/web-sessions')
        .send({ name: 'x', status: 'ready' });
      expect(noAccount.status).toBe(404);
      const noToken = await t
        .http()
        .post(`/admin/v1/accounts/${acc.id}/web-sessions`)
        .send({ name: 'x', status: 'ready' });
      expect(noToken.status).toBe(401);
    });
  });

  describe('WebSessionsService.findForSend', () => {
    it('returns a ready session, 404 for unknown or foreign, 409 when not ready', async () => {
      const svc = t.app.get(WebSessionsService);
      await expect(svc.findForSend(accountIdOf(acc.id), 'main')).resolves.toMatchObject({
        name: 'main',
        status: 'ready',
        provider: 'sandbox',
        kind: 'web',
      });
      const other = await t.createAccount();
      await expect(svc.findForSend(accountIdOf(other.id), 'main')).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(svc.findForSend(accountIdOf(acc.id), 'nope')).rejects.toBeInstanceOf(ApiError);
      await t
        .admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`)
        .send({ name: 'warming', status: 'starting', chats: [] })
        .expect(201);
      await expect(svc.findForSend(accountIdOf(acc.id), 'warming')).rejects.toMatchObject({
        code: 'SESSION_NOT_READY',
        status: 409,
      });
      const bot = await t
        .admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`)
        .send({ name: 'bot-123', kind: 'bot', status: 'ready', chats: [] });
      expect(bot.status).toBe(201);
      await expect(svc.findForSend(accountIdOf(acc.id), 'bot-123')).resolves.toMatchObject({
        kind: 'bot',
        status: 'ready',
      });
    });
  });

  describe('GET /api/v2/chatapp-web/chats (sandbox)', () => {
    it('returns the first page with the exact shape and default limit 20', async () => {
      const res = await chats(acc.key, { accountId: 'main' });
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(res.body.data.accountId).toBe('main');
      expect(res.body.data.chats).toHaveLength(20);
      expect(res.body.data.hasMore).toBe(true);
      expect(typeof res.body.data.nextCursor).toBe('string');
      expect(Object.keys(res.body.data).sort()).toEqual(['accountId', 'chats', 'hasMore', 'nextCursor']);
      expect(res.body.data.chats[0]).toEqual({
        accountId: 'main',
        chatId: '966500000001@c.us',
        kind: 'direct',
        title: 'Sandbox contact 0001',
        phoneNumber: '+966500000001',
        conversationKey: 'main:966500000001@c.us',
        conversationContext: { moduleType: 'chatapp_web', accountId: 'main', chatId: '966500000001@c.us' },
        livemode: true,
      });
      expect(res.body.data.chats[2]).toMatchObject({
        kind: 'group',
        chatId: '120363000000003@g.us',
        phoneNumber: null,
      });
    });

    it('following nextCursor visits each of the 120 chats exactly once', async () => {
      const { items, pages } = await collect(acc.key, { accountId: 'main', limit: 7 });
      expect(items).toHaveLength(120);
      expect(new Set(items.map((c) => c.chatId)).size).toBe(120);
      expect(pages).toBe(18);
      const max = await collect(acc.key, { accountId: 'main', limit: 50 });
      expect(max.pages).toBe(3);
      expect(max.items.map((c) => c.chatId)).toEqual(items.map((c) => c.chatId));
    });

    it('filters by type across pages', async () => {
      const groups = await collect(acc.key, { accountId: 'main', type: 'group', limit: 15 });
      expect(groups.items).toHaveLength(40);
      expect(
        groups.items.every((c) => c.kind === 'group' && c.phoneNumber === null && c.chatId.endsWith('@g.us')),
      ).toBe(true);
      const direct = await collect(acc.key, { accountId: 'main', type: 'direct', limit: 50 });
      expect(direct.items).toHaveLength(80);
      expect(new Set(direct.items.map((c) => c.chatId)).size).toBe(80);
      expect(direct.items.every((c) => c.kind === 'direct' && c.phoneNumber?.startsWith('+966'))).toBe(true);
      const all = await collect(acc.key, { accountId: 'main', type: 'all', limit: 50 });
      expect(all.items).toHaveLength(120);
    });

    it('serves given chats in their order; an empty session is one empty page', async () => {
      const given = [
        { chatId: 'b@g.us', kind: 'group', title: 'Team' },
        { chatId: '15550001111@c.us', kind: 'direct', title: 'Ann', phoneNumber: '+15550001111' },
      ];
      await t
        .admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`)
        .send({ name: 'given', status: 'ready', chats: given })
        .expect(201);
      const res = await chats(acc.key, { accountId: 'given', limit: 2 });
      expect(res.body.data).toMatchObject({ accountId: 'given', nextCursor: null, hasMore: false });
      expect(res.body.data.chats.map((c: ChatView) => [c.chatId, c.kind, c.title, c.phoneNumber])).toEqual([
        ['b@g.us', 'group', 'Team', null],
        ['15550001111@c.us', 'direct', 'Ann', '+15550001111'],
      ]);
      await t
        .admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`)
        .send({ name: 'empty', status: 'ready', chats: [] })
        .expect(201);
      const empty = await chats(acc.key, { accountId: 'empty' });
      expect(empty.body.data).toEqual({ accountId: 'empty', chats: [], nextCursor: null, hasMore: false });
    });

    it('serves messaging-bot ids through the same listing', async () => {
      await t
        .admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`)
        .send({
          name: 'bot-777',
          kind: 'bot',
          status: 'ready',
          chats: [{ chatId: '900100', kind: 'direct', title: 'Bot user' }],
        })
        .expect(201);
      const res = await chats(acc.key, { accountId: 'bot-777' });
      expect(res.status).toBe(200);
      expect(res.body.data.chats).toEqual([
        {
          accountId: 'bot-777',
          chatId: '900100',
          kind: 'direct',
          title: 'Bot user',
          phoneNumber: null,
          conversationKey: 'bot-777:900100',
          conversationContext: { moduleType: 'chatapp_web', accountId: 'bot-777', chatId: '900100' },
          livemode: true,
        },
      ]);
    });

    it('400 VALIDATION_ERROR: missing accountId, limit out of range, bad type', async () => {
      expectError(await chats(acc.key, {}), 400, 'VALIDATION_ERROR', 'accountId is required');
      expectError(await chats(acc.key, { accountId: '' }), 400, 'VALIDATION_ERROR', 'accountId is required');
      for (const limit of ['0', '51', '-1', 'abc', '2.5']) {
        expectError(
          await chats(acc.key, { accountId: 'main', limit }),
          400,
          'VALIDATION_ERROR',
          'limit must be an integer from 1 to 50',
        );
      }
      expect((await chats(acc.key, { accountId: 'main', limit: 1 })).body.data.chats).toHaveLength(1);
      expectError(
        await chats(acc.key, { accountId: 'main', type: 'channel' }),
        400,
        'VALIDATION_ERROR',
        'type must be one of all, direct, group',
      );
    });

    it('400 VALIDATION_ERROR: tampered cursor, and a cursor of another filter, session or account', async () => {
      const first = await chats(acc.key, { accountId: 'main', limit: 5 });
      const cursor: string = first.body.data.nextCursor;
      const [body, sig] = cursor.split('.');
      const forged = Buffer.from(
        JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), p: { f: 0 } }),
      ).toString('base64url');
      expectError(await chats(acc.key, { accountId: 'main', cursor: `${forged}.${sig}` }), 400, 'VALIDATION_ERROR');
      expectError(await chats(acc.key, { accountId: 'main', cursor: 'garbage' }), 400, 'VALIDATION_ERROR');
      expectError(await chats(acc.key, { accountId: 'main', type: 'group', cursor }), 400, 'VALIDATION_ERROR');
      expectError(await chats(acc.key, { accountId: 'gen', cursor }), 400, 'VALIDATION_ERROR');
      const other = await t.createAccount();
      await t
        .admin('post', `/admin/v1/accounts/${other.id}/web-sessions`)
        .send({ name: 'main', status: 'ready' })
        .expect(201);
      expectError(await chats(other.key, { accountId: 'main', cursor }), 400, 'VALIDATION_ERROR');
      expect((await chats(acc.key, { accountId: 'main', cursor })).status).toBe(200);
    });

    it('404 NOT_FOUND for a session of another account or an unknown one; 409 when not ready', async () => {
      const other = await t.createAccount();
      expectError(await chats(other.key, { accountId: 'gen' }), 404, 'NOT_FOUND');
      expectError(await chats(acc.key, { accountId: 'no-such-session' }), 404, 'NOT_FOUND');
      expectError(await chats(acc.key, { accountId: 'gen' }), 409, 'SESSION_NOT_READY');
      await t.admin('patch', `/admin/v1/accounts/${acc.id}/web-sessions/gen`).send({ status: 'ready' }).expect(200);
      expect((await chats(acc.key, { accountId: 'gen' })).status).toBe(200);
    });

    it('needs messages:read', async () => {
      expectError(await t.http().get('/api/v2/chatapp-web/chats').query({ accountId: 'main' }), 401, 'UNAUTHORIZED');
      const noRead = await t.memberKey(acc.id, ['messages:create']);
      expectError(await chats(noRead, { accountId: 'main' }), 403, 'FORBIDDEN');
      const reader = await t.memberKey(acc.id, ['messages:read']);
      expect((await chats(reader, { accountId: 'main' })).status).toBe(200);
    });
  });

  describe('listing -> send route', () => {
    it('a listed chatId and conversationContext are accepted by POST /api/v2/messages/send (web session and bot)', async () => {
      const list = await chats(acc.key, { accountId: 'main', type: 'group', limit: 1 });
      const chat: ChatView = list.body.data.chats[0];
      const sent = await t
        .http()
        .post('/api/v2/messages/send')
        .set('X-API-Key', acc.key)
        .send({
          channel: 'chatapp_web',
          messageType: 'free_text',
          content: { text: 'hi group' },
          chatId: chat.chatId,
          conversationContext: chat.conversationContext,
        });
      expect(sent.status).toBe(201);
      expect(sent.body.data.messages[0]).toMatchObject({ to: chat.chatId, channel: 'chatapp_web', status: 'sent' });
      const bot = (await chats(acc.key, { accountId: 'bot-777' })).body.data.chats[0] as ChatView;
      const botSent = await t
        .http()
        .post('/api/v2/messages/send')
        .set('X-API-Key', acc.key)
        .send({
          channel: 'messaging_bot',
          messageType: 'free_text',
          content: { text: 'hi bot user' },
          chatId: bot.chatId,
          conversationContext: bot.conversationContext,
        });
      expect(botSent.status).toBe(201);
      expect(botSent.body.data.messages[0]).toMatchObject({ channel: 'messaging_bot', status: 'sent' });
    });

    it('the session kind must fit the channel: 400 naming conversationContext.accountId; moduleType messaging_bot only on bots', async () => {
      const send = (body: Record<string, unknown>) =>
        t.http().post('/api/v2/messages/send').set('X-API-Key', acc.key).send(body);
      const web = ((await chats(acc.key, { accountId: 'main', limit: 1 })).body.data.chats as ChatView[])[0];
      const bot = ((await chats(acc.key, { accountId: 'bot-777' })).body.data.chats as ChatView[])[0];
      const text = { messageType: 'free_text', content: { text: 'x' } };
      expectError(
        await send({
          ...text,
          channel: 'chatapp_web',
          chatId: bot.chatId,
          conversationContext: bot.conversationContext,
        }),
        400,
        'VALIDATION_ERROR',
        'conversationContext.accountId: bot-777 is a messaging bot id (channel messaging_bot), not usable on chatapp_web',
      );
      expectError(
        await send({
          ...text,
          channel: 'messaging_bot',
          chatId: web.chatId,
          conversationContext: web.conversationContext,
        }),
        400,
        'VALIDATION_ERROR',
        'conversationContext.accountId: main is a web session (channel chatapp_web), not usable on messaging_bot',
      );
      const botCtx = { ...bot.conversationContext, moduleType: 'messaging_bot' };
      const named = await send({ ...text, channel: 'messaging_bot', chatId: bot.chatId, conversationContext: botCtx });
      expect(named.status).toBe(201);
      expect(named.body.data.messages[0]).toMatchObject({ to: bot.chatId, channel: 'messaging_bot', status: 'sent' });
      expectError(
        await send({
          ...text,
          channel: 'chatapp_web',
          chatId: web.chatId,
          conversationContext: { ...web.conversationContext, moduleType: 'messaging_bot' },
        }),
        400,
        'VALIDATION_ERROR',
        'conversationContext.moduleType must be "chatapp_web"',
      );
    });

    it("the send route answers 409 SESSION_NOT_READY for a session that is not ready, 404 for another account's", async () => {
      await t
        .admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`)
        .send({ name: 'cold', status: 'starting', chats: [] })
        .expect(201);
      const body = {
        channel: 'chatapp_web',
        messageType: 'free_text',
        content: { text: 'x' },
        chatId: '1@c.us',
        conversationContext: { moduleType: 'chatapp_web', accountId: 'cold', chatId: '1@c.us' },
      };
      expectError(
        await t.http().post('/api/v2/messages/send').set('X-API-Key', acc.key).send(body),
        409,
        'SESSION_NOT_READY',
      );
      const other = await t.createAccount();
      expectError(
        await t.http().post('/api/v2/messages/send').set('X-API-Key', other.key).send(body),
        404,
        'NOT_FOUND',
      );
    });
  });
});
