import { WahaFake, wahaAck, wahaSignature } from '../providers-fakes/waha-fake';
import { createTestApp, TestAccount, TestApp, waitFor } from '../support/app';

// WAHA's `message.ack` on the session's signed hook (POST /hooks/waha/:sessionRef, HMAC-SHA512).
describe('WAHA receipts (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;
  let waha: WahaFake;
  let hookPath: string;
  let hmacKey: string;

  beforeAll(async () => {
    waha = await new WahaFake().start();
    t = await createTestApp({
      env: {
        PROVIDER_CHATAPP_WEB: 'waha',
        CHATAPP_WEB_SESSION_PROVIDER: 'waha',
        WAHA_BASE_URL: waha.baseUrl,
        WAHA_API_KEY: waha.apiKey,
        WAHA_TIMEOUT_MS: '1000',
      },
    });
    acc = await t.createAccount();
    waha.sessions.set('default', 'WORKING');
    const res = await t
      .admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`)
      .send({ name: 'shop', status: 'ready', providerSession: 'default' });
    expect(res.status).toBe(201);
    hookPath = new URL(res.body.data.webSession.hook.url).pathname;
    hmacKey = res.body.data.webSession.hook.hmacKey;
  });
  afterAll(async () => {
    await t?.close();
    await waha?.stop();
  });

  const send = async (chatId: string): Promise<{ id: string; providerMessageId: string }> => {
    const res = await t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send({
        channel: 'chatapp_web',
        messageType: 'free_text',
        content: { text: 'Hello' },
        chatId,
        conversationContext: { moduleType: 'chatapp_web', accountId: 'shop', chatId },
      });
    expect(res.status).toBe(201);
    const m = res.body.data.messages[0];
    expect(m.status).toBe('sent');
    return { id: m.id, providerMessageId: `true_${chatId}_MSG${waha.sent.length}` };
  };
  const message = async (id: string) =>
    (await t.http().get(`/api/v2/messages/${id}`).set('X-API-Key', acc.key).expect(200)).body.data;
  const post = (event: Record<string, unknown>, key = hmacKey) => {
    const raw = JSON.stringify(event);
    return t
      .http()
      .post(hookPath)
      .set('Content-Type', 'application/json')
      .set('X-Webhook-Hmac', wahaSignature(key, raw))
      .set('X-Webhook-Hmac-Algorithm', 'sha512')
      .send(raw);
  };

  it('server -> sent, device -> delivered, read -> read; a late device ack changes nothing', async () => {
    const m = await send('966511111111@c.us');
    const server = await post(wahaAck(m.providerMessageId, 1));
    expect(server.status).toBe(200);
    expect(server.body).toEqual({ ok: true, event: 'message.ack', receiptStatus: 'sent' });
    expect((await post(wahaAck(m.providerMessageId, 2))).body).toMatchObject({ receiptStatus: 'delivered' });
    await waitFor(async () => (await message(m.id)).status === 'delivered', { what: 'delivered' });
    expect((await post(wahaAck(m.providerMessageId, 3))).body).toMatchObject({ receiptStatus: 'read' });
    await waitFor(async () => (await message(m.id)).status === 'read', { what: 'read' });
    expect((await post(wahaAck(m.providerMessageId, 2))).status).toBe(200);
    const after = await message(m.id);
    expect(after).toMatchObject({ status: 'read', deliveredAt: expect.any(String), readAt: expect.any(String) });
    expect(
      after.statusHistory
        .filter((h: { source: string }) => h.source === 'provider')
        .map((h: { status: string; providerStatus: string }) => [h.status, h.providerStatus]),
    ).toEqual([
      ['delivered', 'ack 2 DEVICE'],
      ['read', 'ack 3 READ'],
    ]);
  });

  it('played -> read; error -> failed UNDELIVERED; pending is ignored', async () => {
    const voice = await send('966511111112@c.us');
    expect((await post(wahaAck(voice.providerMessageId, 4))).body).toMatchObject({ receiptStatus: 'read' });
    await waitFor(async () => (await message(voice.id)).status === 'read', { what: 'read after played' });
    const lost = await send('966511111113@c.us');
    expect((await post(wahaAck(lost.providerMessageId, 0))).body).toEqual({
      ok: true,
      event: 'message.ack',
      ignored: true,
    });
    expect((await post(wahaAck(lost.providerMessageId, -1))).body).toMatchObject({ receiptStatus: 'failed' });
    await waitFor(async () => (await message(lost.id)).status === 'failed', { what: 'failed' });
    expect(await message(lost.id)).toMatchObject({ status: 'failed', errorCode: 'UNDELIVERED' });
  });

  it('an ack with a bad signature is 401 and changes nothing', async () => {
    const m = await send('966511111114@c.us');
    const res = await post(wahaAck(m.providerMessageId, 3), 'not-the-key');
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
    expect((await message(m.id)).status).toBe('sent');
  });
});
