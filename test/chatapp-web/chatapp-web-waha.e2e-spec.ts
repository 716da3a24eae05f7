import { WahaFake } from '../providers-fakes/waha-fake';
import { TestAccount, TestApp } from '../support/app';
import { chatListing, startChatappWebApp } from '../support/chatapp-web-helpers';
import { expectError } from '../support/envelope';

describe('Chatapp web sessions and chats (e2e): WAHA adapter', () => {
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

  describe('GET /api/v2/chatapp-web/chats (WAHA adapter against a local fake)', () => {
    const wahaChats = [
      { id: '966511111111@c.us', name: 'Ali' },
      { id: { server: 'g.us', user: '1203630001', _serialized: '1203630001@g.us' }, name: 'Family' },
      { id: 'status@broadcast', name: 'Status' },
      { id: '966522222222@s.whatsapp.net', name: null },
      { id: '1203630002@g.us', subject: 'Work' },
      { id: '123456789@lid', name: 'Hidden number' },
      ...Array.from({ length: 30 }, (_, i) => ({
        id: `9665300000${String(i).padStart(2, '0')}@c.us`,
        name: `Contact ${i}`,
      })),
      { id: '1203630003@g.us', name: 'Last group' },
    ];

    beforeAll(async () => {
      waha.sessions.set('wa-main', 'WORKING');
      waha.sessions.set('wa-qr', 'SCAN_QR_CODE');
      waha.chats.set('wa-main', wahaChats);
      for (const name of ['wa-main', 'wa-qr']) {
        const res = await t
          .admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`)
          .send({ name, status: 'starting', provider: 'waha' });
        expect(res.status).toBe(201);
        expect(res.body.data.webSession).toMatchObject({
          provider: 'waha',
          chatCount: null,
          hook: { algorithm: 'sha512' },
        });
        expect(res.body.data.webSession.hook.url).toMatch(/\/hooks\/waha\/wss_/);
      }
    });
    afterEach(() => {
      waha.mode = 'ok';
    });

    it('lists live chats with the API key, maps ids and kinds, pages each chat once', async () => {
      waha.requests = [];
      const { items } = await collect(acc.key, { accountId: 'wa-main', limit: 4 });
      expect(items).toHaveLength(wahaChats.length - 1); // status@broadcast is not a conversation
      expect(new Set(items.map((c) => c.chatId)).size).toBe(items.length);
      expect(items.slice(0, 5).map((c) => [c.chatId, c.kind, c.title, c.phoneNumber])).toEqual([
        ['966511111111@c.us', 'direct', 'Ali', '+966511111111'],
        ['1203630001@g.us', 'group', 'Family', null],
        ['966522222222@s.whatsapp.net', 'direct', '966522222222', '+966522222222'],
        ['1203630002@g.us', 'group', 'Work', null],
        ['123456789@lid', 'direct', 'Hidden number', null],
      ]);
      expect(items[0].conversationContext).toEqual({
        moduleType: 'chatapp_web',
        accountId: 'wa-main',
        chatId: '966511111111@c.us',
      });
      expect(waha.requests.every((r) => r.apiKey === waha.apiKey)).toBe(true);
      expect(waha.requests.some((r) => r.path === '/api/sessions/wa-main')).toBe(true);
      const chatCall = waha.requests.find((r) => r.path === '/api/wa-main/chats');
      expect(chatCall?.query.get('limit')).toBe('5');
      expect(chatCall?.query.get('offset')).toBe('0');
      const groups = await collect(acc.key, { accountId: 'wa-main', type: 'group', limit: 2 });
      expect(groups.items.map((c) => c.chatId)).toEqual(['1203630001@g.us', '1203630002@g.us', '1203630003@g.us']);
    });

    it('409 SESSION_NOT_READY while the provider session scans its QR code, and for one unknown to the provider', async () => {
      expectError(await chats(acc.key, { accountId: 'wa-qr' }), 409, 'SESSION_NOT_READY');
      waha.sessions.delete('wa-qr');
      expectError(await chats(acc.key, { accountId: 'wa-qr' }), 409, 'SESSION_NOT_READY');
    });

    it('502 PROVIDER_ERROR when the provider fails or answers garbage', async () => {
      waha.mode = 'error500';
      expectError(await chats(acc.key, { accountId: 'wa-main' }), 502, 'PROVIDER_ERROR');
      waha.mode = 'garbage';
      expectError(await chats(acc.key, { accountId: 'wa-main' }), 502, 'PROVIDER_ERROR');
    });

    it('502 PROVIDER_ERROR when the provider reports a session status we do not know', async () => {
      waha.sessions.set('wa-main', 'DANCING');
      try {
        expectError(await chats(acc.key, { accountId: 'wa-main' }), 502, 'PROVIDER_ERROR');
      } finally {
        waha.sessions.set('wa-main', 'WORKING');
      }
    });

    it('503 PROVIDER_UNAVAILABLE when the provider is unavailable or times out', async () => {
      waha.mode = 'unavailable503';
      expectError(await chats(acc.key, { accountId: 'wa-main' }), 503, 'PROVIDER_UNAVAILABLE');
      waha.mode = 'hang';
      const started = Date.now();
      expectError(await chats(acc.key, { accountId: 'wa-main' }), 503, 'PROVIDER_UNAVAILABLE');
      expect(Date.now() - started).toBeLessThan(5000);
    });
  });
});
