import { WahaFake } from '../providers-fakes/waha-fake';
import { createTestApp, TestAccount, TestApp } from '../support/app';

// PROVIDER_CHATAPP_WEB=waha: chatapp_web sends go to WAHA's send routes on the session's providerSession.
describe('Chatapp web sends through the WAHA adapter (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;
  let waha: WahaFake;

  beforeAll(async () => {
    waha = await new WahaFake().start();
    t = await createTestApp({
      env: {
        PROVIDER_CHATAPP_WEB: 'waha',
        CHATAPP_WEB_SESSION_PROVIDER: 'waha',
        WAHA_BASE_URL: waha.baseUrl,
        WAHA_API_KEY: waha.apiKey,
        WAHA_TIMEOUT_MS: '400',
      },
    });
    acc = await t.createAccount();
    waha.sessions.set('default', 'WORKING');
    waha.chats.set('default', [{ id: '966511111111@c.us', name: 'Ali' }]);
    const res = await t
      .admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`)
      .send({ name: 'shop', status: 'ready', providerSession: 'default' });
    expect(res.status).toBe(201);
    expect(res.body.data.webSession.provider).toBe('waha');
  });
  afterAll(async () => {
    await t.close();
    await waha.stop();
  });
  afterEach(() => {
    waha.mode = 'ok';
  });

  const send = (chatId: string, extra: Record<string, unknown> = {}) =>
    t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send({
        channel: 'chatapp_web',
        messageType: 'free_text',
        content: { text: 'Hello from the API' },
        chatId,
        conversationContext: { moduleType: 'chatapp_web', accountId: 'shop', chatId },
        ...extra,
      });

  it('sends a listed chat through POST /api/sendText with the API key and the provider session', async () => {
    const chat = (
      await t.http().get('/api/v2/chatapp-web/chats').query({ accountId: 'shop' }).set('X-API-Key', acc.key)
    ).body.data.chats[0];
    const res = await t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send({
        channel: 'chatapp_web',
        messageType: 'free_text',
        content: { text: 'Hello from the API' },
        chatId: chat.chatId,
        conversationContext: chat.conversationContext,
      });
    expect(res.status).toBe(201);
    expect(res.body.data.messages[0]).toMatchObject({
      to: '966511111111@c.us',
      channel: 'chatapp_web',
      status: 'sent',
    });
    expect(waha.sent.at(-1)).toEqual({
      path: '/api/sendText',
      apiKey: waha.apiKey,
      body: { session: 'default', chatId: '966511111111@c.us', text: 'Hello from the API' },
    });
  });

  it('sends an attachment through sendImage / sendFile', async () => {
    expect(
      (
        await send('966511111111@c.us', {
          attachment: { url: 'https://files.example.com/a.png', mimeType: 'image/png' },
        })
      ).status,
    ).toBe(201);
    expect(waha.sent.at(-1)).toMatchObject({
      path: '/api/sendImage',
      body: {
        session: 'default',
        file: { url: 'https://files.example.com/a.png', mimetype: 'image/png' },
        caption: 'Hello from the API',
      },
    });
    expect(
      (await send('966511111111@c.us', { attachment: { url: 'https://files.example.com/a.pdf', fileName: 'a.pdf' } }))
        .status,
    ).toBe(201);
    expect(waha.sent.at(-1)).toMatchObject({
      path: '/api/sendFile',
      body: { file: { url: 'https://files.example.com/a.pdf', filename: 'a.pdf' } },
    });
  });

  it('a chat WAHA refuses is a failed message with PROVIDER_REJECTED; an unavailable WAHA is 503', async () => {
    const rejected = await send('rejected@c.us');
    expect(rejected.status).toBe(201);
    expect(rejected.body.data.messages[0]).toMatchObject({
      to: 'rejected@c.us',
      status: 'failed',
      errorCode: 'PROVIDER_REJECTED',
    });
    waha.mode = 'unavailable503';
    const down = await send('966511111111@c.us');
    expect(down.status).toBe(503);
    expect(down.body.code).toBe('PROVIDER_UNAVAILABLE');
    waha.mode = 'hang';
    const slow = await send('966511111111@c.us');
    expect(slow.status).toBe(503);
    expect(slow.body.code).toBe('PROVIDER_UNAVAILABLE');
  });

  it('refuses to boot with a WAHA provider selected but no WAHA_BASE_URL, or an unknown session provider', async () => {
    await expect(createTestApp({ env: { PROVIDER_CHATAPP_WEB: 'waha' } })).rejects.toThrow(
      'WAHA_BASE_URL is required when PROVIDER_CHATAPP_WEB=waha',
    );
    await expect(createTestApp({ env: { CHATAPP_WEB_SESSION_PROVIDER: 'waha' } })).rejects.toThrow(
      'WAHA_BASE_URL is required when CHATAPP_WEB_SESSION_PROVIDER=waha',
    );
    await expect(createTestApp({ env: { CHATAPP_WEB_SESSION_PROVIDER: 'carrier-pigeon' } })).rejects.toThrow(
      'CHATAPP_WEB_SESSION_PROVIDER must be sandbox or waha',
    );
  });
});
