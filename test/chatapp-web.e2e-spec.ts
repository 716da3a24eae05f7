import { ApiError } from '../src/common/errors';
import { WebSessionsService } from '../src/chatapp-web/web-sessions.service';
import { createTestApp, TestAccount, TestApp } from './support/app';

interface ChatItem {
  accountId: string;
  chatId: string;
  kind: string;
  title: string;
  phoneNumber: string | null;
  conversationKey: string;
  conversationContext: { moduleType: string; accountId: string; chatId: string };
}

describe('Chatapp web sessions and chats (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    acc = await t.createAccount();
    const res = await t.admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`).send({ name: 'main', status: 'ready' });
    expect(res.status).toBe(201);
  });
  afterAll(async () => {
    await t.close();
  });

  const chats = (key: string, query: Record<string, string | number>) => t.http().get('/api/v2/chatapp-web/chats').query(query).set('X-API-Key', key);

  describe('admin web sessions', () => {
    it('creates a sandbox session with 120 generated chats', async () => {
      const res = await t.admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`).send({ name: 'gen', status: 'starting' });
      expect(res.status).toBe(201);
      expect(res.body.data.webSession).toMatchObject({ name: 'gen', kind: 'web', provider: 'sandbox', status: 'starting', chatCount: 120 });
      expect(res.body.data.webSession.hook).toBeUndefined();
    });

    it('refuses a duplicate name in the account (409 CONFLICT) but allows it in another account', async () => {
      const dup = await t.admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`).send({ name: 'main', status: 'ready', chats: [] });
      expect(dup.status).toBe(409);
      expect(dup.body.code).toBe('CONFLICT');
      const other = await t.createAccount();
      const ok = await t.admin('post', `/admin/v1/accounts/${other.id}/web-sessions`).send({ name: 'main', status: 'ready', chats: [] });
      expect(ok.status).toBe(201);
      expect(ok.body.data.webSession.chatCount).toBe(0);
    });

    it('validates the body and the account', async () => {
      const bad = await t.admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`).send({ name: 'x', status: 'sleeping' });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('VALIDATION_ERROR');
      const badChat = await t.admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`).send({ name: 'y', status: 'ready', chats: [{ chatId: 'a', kind: 'channel', title: 't' }] });
      expect(badChat.status).toBe(400);
      const dupChat = await t.admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`)
        .send({ name: 'z', status: 'ready', chats: [{ chatId: 'a', kind: 'direct', title: 't' }, { chatId: 'a', kind: 'group', title: 'u' }] });
      expect(dupChat.status).toBe(400);
      expect(dupChat.body.error).toContain('chatId a');
      const noAccount = await t.admin('post', '/admin/v1/accounts/acc_missing/web-sessions').send({ name: 'x', status: 'ready' });
      expect(noAccount.status).toBe(404);
      const noToken = await t.http().post(`/admin/v1/accounts/${acc.id}/web-sessions`).send({ name: 'x', status: 'ready' });
      expect(noToken.status).toBe(401);
    });
  });

  describe('WebSessionsService.findForSend', () => {
    it('returns a ready session, 404 for unknown or foreign, 409 when not ready', async () => {
      const svc = t.app.get(WebSessionsService);
      await expect(svc.findForSend(acc.id, 'main')).resolves.toMatchObject({ name: 'main', status: 'ready', provider: 'sandbox', kind: 'web' });
      const other = await t.createAccount();
      await expect(svc.findForSend(other.id, 'main')).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(svc.findForSend(acc.id, 'nope')).rejects.toBeInstanceOf(ApiError);
      await t.admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`).send({ name: 'warming', status: 'starting', chats: [] }).expect(201);
      await expect(svc.findForSend(acc.id, 'warming')).rejects.toMatchObject({ code: 'SESSION_NOT_READY', status: 409 });
      const bot = await t.admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`).send({ name: 'bot-123', kind: 'bot', status: 'ready', chats: [] });
      expect(bot.status).toBe(201);
      await expect(svc.findForSend(acc.id, 'bot-123')).resolves.toMatchObject({ kind: 'bot', status: 'ready' });
    });
  });
});
