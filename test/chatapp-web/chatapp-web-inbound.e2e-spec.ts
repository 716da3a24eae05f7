import { WebSessionsService } from '../../src/chatapp-web/web-sessions.service';
import { wahaSignature } from '../providers-fakes/waha-fake';
import { createTestApp, TestAccount, TestApp, waitFor } from '../support/app';
import { ReceivedCall, startReceiver, WebhookReceiver } from '../support/webhook-receiver';
import { accountIdOf } from '../../src/common/account-id';

const ISO_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
/** The `data` object of a delivered event. */
const dataOf = (c: ReceivedCall): Record<string, unknown> =>
  (c.body as { data?: Record<string, unknown> } | null)?.data ?? {};

describe('Chatapp web inbound messages (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let acc: TestAccount;
  let webhookApiKey: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await createTestApp({ env: { WEBHOOK_DELIVERY_INTERVAL_MS: '30', WAHA_BASE_URL: 'http://127.0.0.1:9' } });
    acc = await t.createAccount();
    const put = await t
      .http()
      .put('/api/v2/webhooks/chatapp-web')
      .set('X-API-Key', acc.key)
      .send({ url: receiver.url });
    expect(put.status).toBe(200);
    webhookApiKey = put.body.data.webhookApiKey;
    expect(typeof webhookApiKey).toBe('string');
    await t
      .admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`)
      .send({ name: 'main', status: 'ready', chats: [] })
      .expect(201);
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const inbound = (accountId: string, session: string, body: Record<string, unknown>) =>
    t.admin('post', `/admin/v1/accounts/${accountId}/web-sessions/${session}/inbound`).send(body);
  const callsFor = (remoteMessageId: string): ReceivedCall[] =>
    receiver.calls.filter((c) => dataOf(c).remoteMessageId === remoteMessageId);
  const delivered = (remoteMessageId: string): Promise<ReceivedCall> =>
    waitFor(async () => callsFor(remoteMessageId)[0], { what: `delivery of ${remoteMessageId}` });
  /** Sends a fresh message and waits for it: everything queued before it has had its chance to arrive. */
  async function barrier(): Promise<void> {
    const id = `barrier-${Math.random().toString(36).slice(2)}`;
    await inbound(acc.id, 'main', {
      from: { jid: '966500000099@c.us', displayName: 'B' },
      text: 'barrier',
      remoteMessageId: id,
    }).expect(202);
    await delivered(id);
  }

  it('delivers chatapp_web.message.received with the exact headers and body', async () => {
    const res = await inbound(acc.id, 'main', {
      from: { jid: '966501234567@c.us', displayName: 'Sara' },
      text: 'Hello there',
      remoteMessageId: 'wamid-1',
    });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      success: true,
      data: {
        accepted: true,
        dropped: null,
        status: 'queued',
        deliveryId: expect.any(String),
        remoteMessageId: 'wamid-1',
      },
    });
    const call = await delivered('wamid-1');
    expect(call.headers.authorization).toBe(`Bearer ${webhookApiKey}`);
    expect(call.headers['x-api-key']).toBe(webhookApiKey);
    expect(call.headers['x-service-event']).toBe('chatapp_web.message.received');
    expect(call.headers['x-service-delivery-id']).toBe(res.body.data.deliveryId);
    expect(call.headers['content-type']).toMatch(/^application\/json/);
    expect(call.body).toEqual({
      event: 'chatapp_web.message.received',
      timestamp: expect.stringMatching(ISO_RE),
      livemode: true,
      data: {
        accountId: 'main',
        conversationKey: 'main:966501234567@c.us',
        remoteChatId: '966501234567@c.us',
        remoteMessageId: 'wamid-1',
        from: { jid: '966501234567@c.us', phone: '+966501234567', displayName: 'Sara' },
        isGroup: false,
        text: 'Hello there',
        messageType: 'text',
        timestamp: expect.stringMatching(ISO_RE),
        hasMedia: false,
        mediaType: null,
        mimetype: null,
        fileName: null,
      },
    });
  });

  it('describes media without bytes, and marks group messages', async () => {
    const res = await inbound(acc.id, 'main', {
      from: { jid: '966507654321@c.us', phone: '+966507654321', displayName: 'Omar' },
      text: 'see attached',
      isGroup: true,
      remoteChatId: '120363000000777@g.us',
      remoteMessageId: 'wamid-media',
      media: { mediaType: 'image', mimetype: 'image/jpeg', fileName: 'photo.jpg' },
    });
    expect(res.status).toBe(202);
    const media = await delivered('wamid-media');
    expect(dataOf(media)).toMatchObject({
      conversationKey: 'main:120363000000777@g.us',
      remoteChatId: '120363000000777@g.us',
      isGroup: true,
      from: { jid: '966507654321@c.us', phone: '+966507654321', displayName: 'Omar' },
      messageType: 'image',
      hasMedia: true,
      mediaType: 'image',
      mimetype: 'image/jpeg',
      fileName: 'photo.jpg',
    });
    expect(media.raw.length).toBeLessThan(2000);
  });

  it('drops own messages and history sync: answered 202 with the reason, nothing delivered', async () => {
    const mine = await inbound(acc.id, 'main', {
      from: { jid: '966500000001@c.us', displayName: 'Me' },
      text: 'mine',
      remoteMessageId: 'own-1',
      fromMe: true,
    });
    expect(mine.status).toBe(202);
    expect(mine.body.data).toEqual({
      accepted: false,
      dropped: 'from_me',
      status: null,
      deliveryId: null,
      remoteMessageId: 'own-1',
    });
    const old = await inbound(acc.id, 'main', {
      from: { jid: '966500000002@c.us', displayName: 'Old' },
      text: 'old',
      remoteMessageId: 'hist-1',
      historySync: true,
    });
    expect(old.status).toBe(202);
    expect(old.body.data).toMatchObject({ accepted: false, dropped: 'history_sync' });
    await barrier();
    expect(callsFor('own-1')).toHaveLength(0);
    expect(callsFor('hist-1')).toHaveLength(0);
  });

  it('delivers the same remoteMessageId once, also when it arrives concurrently', async () => {
    const body = { from: { jid: '966500000003@c.us', displayName: 'Dup' }, text: 'twice', remoteMessageId: 'dup-1' };
    const first = await inbound(acc.id, 'main', body);
    const second = await inbound(acc.id, 'main', body);
    expect(first.body.data.accepted).toBe(true);
    expect(second.status).toBe(202);
    expect(second.body.data).toEqual({
      accepted: false,
      dropped: 'duplicate',
      status: null,
      deliveryId: null,
      remoteMessageId: 'dup-1',
    });
    const burst = await Promise.all(
      Array.from({ length: 6 }, () => inbound(acc.id, 'main', { ...body, remoteMessageId: 'dup-2' })),
    );
    expect(burst.map((r) => r.status)).toEqual(Array(6).fill(202));
    expect(burst.filter((r) => r.body.data.accepted)).toHaveLength(1);
    await delivered('dup-1');
    await delivered('dup-2');
    await barrier();
    expect(callsFor('dup-1')).toHaveLength(1);
    expect(callsFor('dup-2')).toHaveLength(1);
  });

  it('records a message as skipped when the account has no webhook; it is not replayed later', async () => {
    const other = await t.createAccount();
    await t
      .admin('post', `/admin/v1/accounts/${other.id}/web-sessions`)
      .send({ name: 'main', status: 'ready', chats: [] })
      .expect(201);
    const msg = { from: { jid: '966500000004@c.us', displayName: 'Nobody' }, text: 'hi', remoteMessageId: 'skip-1' };
    const res = await inbound(other.id, 'main', msg);
    expect(res.body.data).toEqual({
      accepted: true,
      dropped: null,
      status: 'skipped',
      deliveryId: null,
      remoteMessageId: 'skip-1',
    });
    await t
      .http()
      .put('/api/v2/webhooks/chatapp-web')
      .set('X-API-Key', other.key)
      .send({ url: receiver.url })
      .expect(200);
    expect((await inbound(other.id, 'main', msg)).body.data.dropped).toBe('duplicate');
    await barrier();
    expect(callsFor('skip-1')).toHaveLength(0);
  });

  it('validates the sandbox body and the session', async () => {
    const bad = await inbound(acc.id, 'main', { from: { displayName: 'x' }, text: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_ERROR');
    expect(bad.body.error).toContain('from.jid');
    const badMedia = await inbound(acc.id, 'main', {
      from: { jid: 'a@c.us', displayName: 'x' },
      text: 'x',
      media: { mediaType: 'image', mimetype: 'image/png', bytes: 'AAAA' },
    });
    expect(badMedia.status).toBe(400);
    expect((await inbound(acc.id, 'nope', { from: { jid: 'a@c.us', displayName: 'x' }, text: 'x' })).status).toBe(404);
  });

  describe('WAHA webhook (POST /hooks/waha/:sessionRef, HMAC-SHA512)', () => {
    let hookUrl: string;
    let hmacKey: string;

    beforeAll(async () => {
      const res = await t
        .admin('post', `/admin/v1/accounts/${acc.id}/web-sessions`)
        .send({ name: 'wa', status: 'ready', provider: 'waha', providerSession: 'default' });
      expect(res.status).toBe(201);
      hookUrl = new URL(res.body.data.webSession.hook.url).pathname;
      hmacKey = res.body.data.webSession.hook.hmacKey;
    });

    const post = (event: Record<string, unknown>, key = hmacKey, path = hookUrl) => {
      const raw = JSON.stringify(event);
      return t
        .http()
        .post(path)
        .set('Content-Type', 'application/json')
        .set('X-Webhook-Hmac', wahaSignature(key, raw))
        .set('X-Webhook-Hmac-Algorithm', 'sha512')
        .send(raw);
    };
    const message = (over: Record<string, unknown> = {}, event = 'message') => ({
      id: 'evt_1',
      event,
      session: 'default',
      timestamp: Date.now(),
      payload: {
        id: 'false_966509998887@c.us_3EB0AAAA',
        timestamp: Math.floor(Date.now() / 1000),
        from: '966509998887@c.us',
        fromMe: false,
        to: '966500000001@c.us',
        body: 'Salam ✓',
        hasMedia: false,
        _data: { notifyName: 'Khalid' },
        ...over,
      },
    });

    it('turns a signed inbound message into the event', async () => {
      const res = await post(message());
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ ok: true, event: 'message', accepted: true, status: 'queued' });
      const call = await delivered('false_966509998887@c.us_3EB0AAAA');
      expect(call.headers.authorization).toBe(`Bearer ${webhookApiKey}`);
      expect(dataOf(call)).toMatchObject({
        accountId: 'wa',
        conversationKey: 'wa:966509998887@c.us',
        remoteChatId: '966509998887@c.us',
        from: { jid: '966509998887@c.us', phone: '+966509998887', displayName: 'Khalid' },
        isGroup: false,
        text: 'Salam ✓',
        messageType: 'text',
        hasMedia: false,
      });
      expect((await post(message())).body).toMatchObject({ ok: true, accepted: false, dropped: 'duplicate' });
    });

    it('maps group authors and media, drops own (message.any) and history messages', async () => {
      const group = await post(
        message({
          id: 'false_120363111@g.us_GRP1',
          from: '120363111@g.us',
          participant: '966501112223@c.us',
          body: '',
          hasMedia: true,
          media: { url: 'http://waha/files/x.ogg', mimetype: 'audio/ogg; codecs=opus', filename: null },
        }),
      );
      expect(group.body.accepted).toBe(true);
      const g = await delivered('false_120363111@g.us_GRP1');
      expect(dataOf(g)).toMatchObject({
        remoteChatId: '120363111@g.us',
        isGroup: true,
        from: { jid: '966501112223@c.us' },
        hasMedia: true,
        mediaType: 'audio',
        messageType: 'audio',
        mimetype: 'audio/ogg; codecs=opus',
        fileName: null,
      });
      expect(g.raw).not.toContain('http://waha/files');
      const own = await post(message({ id: 'true_966509998887@c.us_OWN', fromMe: true }, 'message.any'));
      expect(own.body).toMatchObject({ ok: true, accepted: false, dropped: 'from_me' });
      const hist = await post(
        message({ id: 'false_966509998887@c.us_OLD', timestamp: Math.floor(Date.now() / 1000) - 86_400 }),
      );
      expect(hist.body).toMatchObject({ ok: true, accepted: false, dropped: 'history_sync' });
      await barrier();
      expect(callsFor('true_966509998887@c.us_OWN')).toHaveLength(0);
      expect(callsFor('false_966509998887@c.us_OLD')).toHaveLength(0);
    });

    it('401 for a bad signature, a missing one, or an unknown session; session.status updates the session', async () => {
      expect((await post(message({ id: 'forged-1' }), 'wrong-key')).status).toBe(401);
      expect(
        (
          await t
            .http()
            .post(hookUrl)
            .send(message({ id: 'forged-2' }))
        ).status,
      ).toBe(401);
      expect((await post(message({ id: 'forged-3' }), hmacKey, '/hooks/waha/wss_unknown')).status).toBe(401);
      const status = await post({
        event: 'session.status',
        session: 'default',
        timestamp: Date.now(),
        payload: { name: 'default', status: 'SCAN_QR_CODE' },
      });
      expect(status.body).toEqual({ ok: true, event: 'session.status', sessionStatus: 'starting' });
      await expect(t.app.get(WebSessionsService).findForSend(accountIdOf(acc.id), 'wa')).rejects.toMatchObject({
        code: 'SESSION_NOT_READY',
      });
      await post({
        event: 'session.status',
        session: 'default',
        timestamp: Date.now(),
        payload: { name: 'default', status: 'WORKING' },
      }).expect(200);
      await expect(t.app.get(WebSessionsService).findForSend(accountIdOf(acc.id), 'wa')).resolves.toMatchObject({
        status: 'ready',
        provider: 'waha',
      });
      expect((await post({ event: 'presence.update', payload: {} })).body).toEqual({
        ok: true,
        event: 'presence.update',
        ignored: true,
      });
      await barrier();
      expect(receiver.calls.filter((c) => String(dataOf(c).remoteMessageId).startsWith('forged'))).toHaveLength(0);
    });

    it('400 VALIDATION_ERROR for a session.status without a known status; the session keeps its status', async () => {
      for (const payload of [{ name: 'default', status: 'DANCING' }, { name: 'default' }, null]) {
        const res = await post({ event: 'session.status', session: 'default', payload });
        expect({ status: res.status, code: res.body.code, success: res.body.success }).toEqual({
          status: 400,
          code: 'VALIDATION_ERROR',
          success: false,
        });
        expect(res.body.error).toContain('payload.status');
      }
      await expect(t.app.get(WebSessionsService).findForSend(accountIdOf(acc.id), 'wa')).resolves.toMatchObject({
        status: 'ready',
      });
    });

    it('a correctly signed session.status older than WAHA_EVENT_MAX_AGE_SECONDS (a replay) is answered 200 and changes nothing', async () => {
      const ready = () => t.app.get(WebSessionsService).findForSend(accountIdOf(acc.id), 'wa');
      await expect(ready()).resolves.toMatchObject({ status: 'ready' });
      const replay = {
        event: 'session.status',
        session: 'default',
        timestamp: Date.now() - 6 * 60_000,
        payload: { name: 'default', status: 'STOPPED' },
      };
      const res = await post(replay);
      expect({ status: res.status, body: res.body }).toEqual({
        status: 200,
        body: { ok: true, event: 'session.status', ignored: true },
      });
      await expect(ready()).resolves.toMatchObject({ status: 'ready' });
      // Unstamped: cannot be told from a replay.
      const { timestamp: _omit, ...unstamped } = replay;
      const bad = await post(unstamped);
      expect({ status: bad.status, code: bad.body.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
      expect(bad.body.error).toContain('timestamp');
      await expect(ready()).resolves.toMatchObject({ status: 'ready' });
    });

    it('a timestamp outside the Date range counts as absent (now), not a 500', async () => {
      for (const [id, timestamp] of [
        ['false_966509998887@c.us_TSHUGE', 1e300],
        ['false_966509998887@c.us_TSEDGE', 8.64e12 + 1],
      ] as const) {
        const res = await post(message({ id, timestamp }));
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ ok: true, accepted: true, status: 'queued' });
        const call = await delivered(id);
        expect(Math.abs(Date.parse(String(dataOf(call).timestamp)) - Date.now())).toBeLessThan(60_000);
      }
    });

    it('400 VALIDATION_ERROR for a payload.id or payload.from longer than 200 characters; nothing stored', async () => {
      for (const over of [
        { id: `false_966509998887@c.us_${'L'.repeat(200)}` },
        { id: 'false_long_from', from: `${'1'.repeat(200)}@g.us` },
      ]) {
        const res = await post(message(over));
        expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
        expect(res.body.error).toContain('200');
      }
      const ok = await post(message({ id: 'false_long_from' }));
      expect(ok.body).toMatchObject({ ok: true, accepted: true });
    });
  });
});
