import { CloudFake, cloudEnv } from '../providers-fakes/cloud-fake';
import { closedPort } from '../providers-fakes/http-fake';
import { createTestApp, TestAccount, TestApp, waitFor } from '../support/app';
import { expectError } from '../support/envelope';
import { approvedSender, uniqueName } from '../support/inbound-helpers';
import { chatappBody } from '../support/templates-helpers';
import { createTestKey } from '../support/test-mode-helpers';
import { startReceiver, WebhookReceiver } from '../support/webhook-receiver';

const TEST_BALANCE = 5_000;
const PHONE = '+966501234567';

/**
 * The test-mode controls (/api/v2/test/...) on an app whose live chat-app and web-session providers are
 * real adapters (a local Cloud API fake, WAHA on a closed port): whatever a test key does stays in
 * the sandbox and in the account's test mode.
 */
describe('Test-mode controls (e2e)', () => {
  let t: TestApp;
  let cloud: CloudFake;
  let receiver: WebhookReceiver;
  let acc: TestAccount;
  let owner: string;
  let member: string;
  let other: string;

  beforeAll(async () => {
    cloud = new CloudFake();
    await cloud.start();
    receiver = await startReceiver();
    t = await createTestApp({
      env: {
        ...cloudEnv(cloud.url),
        TEST_MODE_BALANCE: String(TEST_BALANCE),
        WEBHOOK_DELIVERY_INTERVAL_MS: '25',
        PROVIDER_CHATAPP_WEB: 'waha',
        CHATAPP_WEB_SESSION_PROVIDER: 'waha',
        WAHA_BASE_URL: `http://127.0.0.1:${await closedPort()}`,
      },
    });
    acc = await t.createAccount({ walletBalance: 100_000, freeMessages: 0 });
    owner = (await createTestKey(t, acc.key)).key;
    member = (
      await createTestKey(t, acc.key, {
        role: 'member',
        permissions: ['messages:create', 'messages:read', 'api_keys:read'],
      })
    ).key;
    other = (await createTestKey(t, (await t.createAccount()).key)).key;
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await cloud?.stop();
  });

  const post = (key: string, path: string, body: object = {}) => t.http().post(path).set('X-API-Key', key).send(body);
  const get = (key: string, path: string) => t.http().get(path).set('X-API-Key', key);
  const sms = (to = PHONE, over: object = {}) => ({
    to,
    channel: 'local_sms',
    messageType: 'free_text',
    content: { text: 'Test mode' },
    ...over,
  });
  const send = async (key: string, body: object = sms()) => post(key, '/api/v2/messages/send', body);
  const sentId = async (key: string, body: object = sms()): Promise<string> => {
    const res = await send(key, body);
    expect(res.status).toBe(201);
    expect(res.body.data.messages[0].status).toBe('sent');
    return res.body.data.messages[0].id as string;
  };
  const setStatus = (id: string, body: object, key = owner) => post(key, `/api/v2/test/messages/${id}/status`, body);
  const suppressed = async (key: string, recipient: string) =>
    (await get(key, `/api/v2/suppressions?recipient=${encodeURIComponent(recipient)}`)).body.data.suppressions as {
      recipient: string;
      channel: string;
      reason: string;
    }[];

  it('every control refuses a live key (a test key is needed) and a test member key (the owner is)', async () => {
    const routes: [string, string, object][] = [
      ['post', '/api/v2/test/messages/msg_x/status', { status: 'delivered' }],
      ['post', '/api/v2/test/inbound/sms', { from: PHONE, text: 'hi' }],
      ['post', '/api/v2/test/web-sessions', { name: 'line' }],
      ['post', '/api/v2/test/web-sessions/line/inbound', { from: PHONE, text: 'hi' }],
      ['post', '/api/v2/test/sms-senders/snd_x/approve', {}],
      ['post', '/api/v2/test/sms-senders/snd_x/reject', {}],
      ['post', '/api/v2/test/templates/tpl_x/approve', {}],
      ['post', '/api/v2/test/templates/tpl_x/reject', {}],
      ['post', '/api/v2/test/faults', { kind: 'timeout', count: 1 }],
      ['delete', '/api/v2/test/faults', {}],
      ['post', '/api/v2/test/balance/reset', {}],
    ];
    const liveMember = await t.memberKey(acc.id, ['messages:create', 'messages:read', 'api_keys:read']);
    for (const [method, path, body] of routes) {
      const call = (key: string) =>
        method === 'post' ? post(key, path, body) : t.http().delete(path).set('X-API-Key', key);
      for (const live of [acc.key, liveMember])
        expectError(await call(live), 403, 'FORBIDDEN', 'Test-mode controls need a test key (msk_test_...)');
      expectError(await call(member), 403, 'FORBIDDEN', /owner key/);
    }
  });

  it('message status: delivered then read through the receipt writer, with events to a test-mode endpoint; repeated and stale moves are 409', async () => {
    const ep = await post(owner, '/api/v2/webhooks/endpoints', { url: receiver.url, events: ['message.delivered'] });
    expect(ep.status).toBe(201);
    const id = await sentId(owner);

    const delivered = await setStatus(id, { status: 'delivered' });
    expect(delivered.status).toBe(200);
    expect(delivered.body.data).toMatchObject({ id, status: 'delivered', errorCode: null, livemode: false });
    expect(delivered.body.data.statusHistory.at(-1)).toMatchObject({
      status: 'delivered',
      source: 'provider',
      providerStatus: 'simulated',
    });
    expect((await get(owner, `/api/v2/messages/${id}`)).body.data).toEqual(delivered.body.data);
    const call = await waitFor(
      async () => receiver.calls.find((c) => (c.body as { data?: { id?: string } } | null)?.data?.id === id) ?? null,
      { what: 'message.delivered at the test-mode endpoint' },
    );
    expect(call.body).toMatchObject({ type: 'message.delivered', data: { id, status: 'delivered' } });

    expectError(await setStatus(id, { status: 'delivered' }), 409, 'INVALID_STATE', /forward only/);
    const read = await setStatus(id, { status: 'read' });
    expect(read.status).toBe(200);
    expect(read.body.data.statusHistory.map((h: { status: string }) => h.status)).toEqual([
      'queued',
      'sent',
      'delivered',
      'read',
    ]);
    expectError(await setStatus(id, { status: 'delivered' }), 409, 'INVALID_STATE', /Message is read/);
    expectError(await setStatus(id, { status: 'failed' }), 409, 'INVALID_STATE');
  });

  it("message status: failed with the given code and text; a message not sent (scheduled, rejected) is 409; live and other accounts' messages 404; bad bodies 400", async () => {
    const id = await sentId(owner);
    const failed = await setStatus(id, {
      status: 'failed',
      errorCode: 'EXPIRED',
      errorMessage: 'Handset off for 48 hours',
    });
    expect(failed.status).toBe(200);
    expect(failed.body.data).toMatchObject({
      status: 'failed',
      errorCode: 'EXPIRED',
      errorMessage: 'Handset off for 48 hours',
    });
    expect(failed.body.data.failedAt).not.toBeNull();

    const plain = await setStatus(await sentId(owner), { status: 'failed' });
    expect(plain.body.data).toMatchObject({ status: 'failed', errorCode: 'UNDELIVERED' });

    const later = await send(owner, sms(PHONE, { scheduleAt: new Date(Date.now() + 3_600_000).toISOString() }));
    expect(later.body.data.messages[0].status).toBe('scheduled');
    expectError(
      await setStatus(later.body.data.messages[0].id, { status: 'delivered' }),
      409,
      'INVALID_STATE',
      /not sent yet/,
    );

    // The documented sandbox recipients hold in test mode: ...0000 is rejected (failed at the send).
    const rejected = await send(owner, sms('+966500000000'));
    expect(rejected.body.data.messages[0]).toMatchObject({ status: 'failed', errorCode: 'PROVIDER_REJECTED' });
    expectError(await setStatus(rejected.body.data.messages[0].id, { status: 'delivered' }), 409, 'INVALID_STATE');

    const live = await sentId(acc.key);
    const others = await sentId(other);
    for (const unknown of [live, others, 'msg_missing'])
      expectError(await setStatus(unknown, { status: 'delivered' }), 404, 'NOT_FOUND');
    expect((await get(acc.key, `/api/v2/messages/${live}`)).body.data.status).toBe('sent');

    const fresh = await sentId(owner);
    for (const body of [
      {},
      { status: 'sent' },
      { status: 'failed', errorCode: 'PROVIDER_REJECTED' },
      { status: 'failed', errorMessage: 'x'.repeat(501) },
      { status: 'delivered', errorCode: 'UNDELIVERED' },
      { status: 'delivered', extra: true },
    ])
      expectError(await setStatus(fresh, body), 400, 'VALIDATION_ERROR');
    expect((await get(owner, `/api/v2/messages/${fresh}`)).body.data.status).toBe('sent');
  });

  it("faults: the next test sends fail as mapped, live sends of the same account do not; DELETE clears only this test mode's", async () => {
    const added = await post(owner, '/api/v2/test/faults', {
      kind: 'provider_rate_limit',
      count: 1,
      channel: 'local_sms',
    });
    expect(added.status).toBe(201);
    expect(added.body.data.fault).toEqual({
      id: expect.stringMatching(/^flt_/),
      kind: 'provider_rate_limit',
      channel: 'local_sms',
      count: 1,
    });
    expect((await send(acc.key)).body.data.messages[0].status).toBe('sent');
    expectError(await send(owner), 429, 'PROVIDER_RATE_LIMITED');
    expect((await send(owner)).body.data.messages[0].status).toBe('sent');

    await post(owner, '/api/v2/test/faults', { kind: 'provider_unavailable', count: 2 }).expect(201);
    await post(other, '/api/v2/test/faults', { kind: 'provider_unavailable', count: 5 }).expect(201);
    expectError(await send(owner), 503, 'PROVIDER_UNAVAILABLE');
    expect((await send(acc.key)).body.data.messages[0].status).toBe('sent');
    const cleared = await t.http().delete('/api/v2/test/faults').set('X-API-Key', owner);
    expect(cleared.status).toBe(200);
    expect(cleared.body.data).toEqual({ cleared: 1 });
    expect((await send(owner)).body.data.messages[0].status).toBe('sent');
    // The other account's test mode keeps its fault until its own owner clears it.
    expectError(await send(other), 503, 'PROVIDER_UNAVAILABLE');
    // `cleared` counts faults (with sends left to fail), not sends.
    expect((await t.http().delete('/api/v2/test/faults').set('X-API-Key', other)).body.data).toEqual({ cleared: 1 });
    expect((await send(other)).body.data.messages[0].status).toBe('sent');

    // timeout: the sandbox never answers and the provider timeout (400 ms here) fires.
    await post(owner, '/api/v2/test/faults', { kind: 'timeout', count: 1, channel: 'email' }).expect(201);
    expect((await send(owner)).body.data.messages[0].status).toBe('sent');
    const email = {
      to: 'sara@example.com',
      channel: 'email',
      messageType: 'free_text',
      content: { subject: 'Hi', text: 'Hi' },
    };
    expectError(await send(owner, email), 503, 'PROVIDER_UNAVAILABLE');

    for (const body of [
      {},
      { kind: 'reject', count: 1 },
      { kind: 'timeout', count: 0 },
      { kind: 'timeout', count: 1001 },
      { kind: 'timeout', count: 1.5 },
      { kind: 'timeout', count: 1, channel: 'fax' },
      { kind: 'timeout', count: 1, accountId: acc.id },
    ])
      expectError(await post(owner, '/api/v2/test/faults', body), 400, 'VALIDATION_ERROR');
  });

  it('balance reset: the test balance goes back to TEST_MODE_BALANCE, the live one is untouched', async () => {
    const liveBefore = (await get(acc.key, '/api/v2/account')).body.data.walletBalance as number;
    await sentId(owner);
    expect((await get(owner, '/api/v2/account')).body.data.walletBalance).toBeLessThan(TEST_BALANCE);
    const reset = await post(owner, '/api/v2/test/balance/reset');
    expect(reset.status).toBe(200);
    expect(reset.body.data).toMatchObject({ id: acc.id, walletBalance: TEST_BALANCE, livemode: false });
    expect((await get(owner, '/api/v2/account')).body.data).toEqual(reset.body.data);
    expect((await get(acc.key, '/api/v2/account')).body.data.walletBalance).toBe(liveBefore);
  });

  it('inbound SMS: STOP to a test sender opts the number out of the test mode only, and sms.received stays there', async () => {
    const name = uniqueName('Tst');
    // The live account holds the same sender name: the name alone reaches neither account.
    await approvedSender(t, acc, name);
    const created = await post(owner, '/api/v2/sms-senders', { name });
    expect(created.status).toBe(201);
    const senderId = created.body.data.smsSender.id as string;
    const approved = await post(owner, `/api/v2/test/sms-senders/${senderId}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body.data.smsSender).toMatchObject({
      id: senderId,
      name,
      status: 'approved',
      reason: null,
      livemode: false,
    });
    expect(approved.body.data.smsSender.accountId).toBeUndefined();

    const events = await post(owner, '/api/v2/webhooks/endpoints', {
      url: `${receiver.url}?sms=1`,
      events: ['sms.received', 'recipient.opted_out'],
    });
    expect(events.status).toBe(201);

    const from = '+966501110001';
    const res = await post(owner, '/api/v2/test/inbound/sms', { from, to: name, text: 'STOP' });
    expect(res.status).toBe(201);
    const received = await waitFor(
      async () => {
        const types = receiver.calls
          .filter((c) => c.path.endsWith('?sms=1'))
          .map((c) => (c.body as { type: string }).type);
        return types.length === 2 ? types.sort() : null;
      },
      { what: 'sms.received and recipient.opted_out at the test-mode endpoint' },
    );
    expect(received).toEqual(['recipient.opted_out', 'sms.received']);
    expect(res.body.data.inboundSms).toMatchObject({
      from,
      to: name,
      text: 'STOP',
      senderId,
      complete: true,
      parts: [],
      livemode: false,
    });
    expect(await suppressed(owner, from)).toEqual([
      expect.objectContaining({ recipient: from, channel: 'local_sms', reason: 'keyword' }),
    ]);
    expect(await suppressed(acc.key, from)).toEqual([]);
    const inbox = (key: string) => get(key, '/api/v2/sms/inbound');
    expect((await inbox(owner)).body.data.inboundSms.map((s: { id: string }) => s.id)).toContain(
      res.body.data.inboundSms.id,
    );
    expect((await inbox(acc.key)).body.data.inboundSms).toEqual([]);
    expectError(await send(owner, sms(from)), 400, 'RECIPIENT_OPTED_OUT');
    expect((await send(acc.key, sms(from))).body.data.messages[0].status).toBe('sent');

    // Without `to`: the test mode's default sender (its first approved one).
    const dflt = await post(owner, '/api/v2/test/inbound/sms', { from, text: 'START' });
    expect(dflt.status).toBe(201);
    expect(dflt.body.data.inboundSms).toMatchObject({ to: name, senderId });
    expect(await suppressed(owner, from)).toEqual([]);

    expectError(
      await post(owner, '/api/v2/test/inbound/sms', { from, to: 'NoSuchName', text: 'hi' }),
      400,
      'SENDER_NOT_APPROVED',
    );
    expectError(await post(other, '/api/v2/test/inbound/sms', { from, text: 'hi' }), 400, 'SENDER_NOT_APPROVED');
    for (const body of [
      { from: '0501234567', text: 'hi' },
      { from, text: '' },
      { from, to: 'x'.repeat(13), text: 'hi' },
      { from },
    ])
      expectError(await post(owner, '/api/v2/test/inbound/sms', body), 400, 'VALIDATION_ERROR');
  });

  it("sender review: only the test mode's own pending senders; a live one stays pending", async () => {
    const mine = (await post(owner, '/api/v2/sms-senders', { name: uniqueName('Rev') })).body.data.smsSender.id;
    const rejected = await post(owner, `/api/v2/test/sms-senders/${mine}/reject`, { reason: 'Brand not verified' });
    expect(rejected.status).toBe(200);
    expect(rejected.body.data.smsSender).toMatchObject({ id: mine, status: 'rejected', reason: 'Brand not verified' });
    expectError(await post(owner, `/api/v2/test/sms-senders/${mine}/approve`), 409, 'INVALID_STATE');

    const live = (await post(acc.key, '/api/v2/sms-senders', { name: uniqueName('Liv') })).body.data.smsSender.id;
    const others = (await post(other, '/api/v2/sms-senders', { name: uniqueName('Oth') })).body.data.smsSender.id;
    for (const id of [live, others, 'snd_missing'])
      expectError(await post(owner, `/api/v2/test/sms-senders/${id}/approve`), 404, 'NOT_FOUND');
    const senders = (await get(acc.key, '/api/v2/sms-senders')).body.data.smsSenders as {
      id: string;
      status: string;
    }[];
    expect(senders.find((s) => s.id === live)?.status).toBe('pending');
    expectError(
      await post(owner, `/api/v2/test/sms-senders/${others}/reject`, { reason: 'x'.repeat(501) }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('templates: a test template is submitted to the sandbox (never the provider) and reviewed by the controls', async () => {
    cloud.requests = [];
    const mine = await post(owner, '/api/v2/templates', chatappBody({ name: 'test_mode_order' }));
    expect(mine.status).toBe(201);
    expect(mine.body.data.template).toMatchObject({ status: 'pending', provider: 'official' });
    expect(mine.body.data.template.providerTemplateId).toMatch(/^sbxtpl_/);
    expect(cloud.requests).toEqual([]);
    const live = await post(acc.key, '/api/v2/templates', chatappBody({ name: 'test_mode_order' }));
    expect(live.status).toBe(201);
    expect(cloud.requests).toHaveLength(1);

    const id = mine.body.data.template.id as string;
    const approved = await post(owner, `/api/v2/test/templates/${id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body.data.template).toMatchObject({ id, status: 'approved', livemode: false });
    expect((await get(owner, `/api/v2/templates/${id}`)).body.data).toMatchObject({ id, status: 'approved' });
    const rejected = await post(owner, `/api/v2/test/templates/${id}/reject`, { reason: 'Promotional content' });
    expect(rejected.body.data.template).toMatchObject({ status: 'rejected', rejectionReason: 'Promotional content' });

    const liveId = live.body.data.template.id as string;
    expectError(await post(owner, `/api/v2/test/templates/${liveId}/approve`), 404, 'NOT_FOUND');
    expect((await get(acc.key, `/api/v2/templates/${liveId}`)).body.data.status).toBe('pending');
    expectError(await post(owner, `/api/v2/test/templates/${id}/reject`, { reason: 42 }), 400, 'VALIDATION_ERROR');
  });

  it('web sessions: a linked sandbox session whatever the configured provider; inbound messages reach the test-mode webhook and STOP opts out', async () => {
    const created = await post(owner, '/api/v2/test/web-sessions', { name: 'test-line' });
    expect(created.status).toBe(201);
    expect(created.body.data.webSession).toMatchObject({
      name: 'test-line',
      kind: 'web',
      provider: 'sandbox',
      status: 'ready',
      chatCount: 120,
    });
    const again = await post(owner, '/api/v2/test/web-sessions', { name: 'test-line' });
    expect(again.status).toBe(200);
    expect(again.body.data.webSession).toEqual(created.body.data.webSession);

    // WAHA (a closed port here) is never asked: chats come from the sandbox, sends go to it.
    const chats = await get(owner, '/api/v2/chatapp-web/chats?accountId=test-line&limit=5');
    expect(chats.status).toBe(200);
    const chat = chats.body.data.chats.find((c: { phoneNumber: string | null }) => c.phoneNumber !== null);
    const sent = await send(owner, {
      channel: 'chatapp_web',
      messageType: 'free_text',
      content: { text: 'Hello from test mode' },
      chatId: chat.chatId,
      conversationContext: chat.conversationContext,
    });
    expect(sent.body.data.messages[0].status).toBe('sent');
    expectError(await get(acc.key, '/api/v2/chatapp-web/chats?accountId=test-line'), 404, 'NOT_FOUND');

    const hook = await t
      .http()
      .put('/api/v2/webhooks/chatapp-web')
      .set('X-API-Key', owner)
      .send({ url: `${receiver.url}?web=1` });
    expect(hook.status).toBe(200);
    const from = '+966501110002';
    const inbound = await post(owner, '/api/v2/test/web-sessions/test-line/inbound', {
      from,
      text: 'Is my order ready?',
    });
    expect(inbound.status).toBe(201);
    expect(inbound.body.data).toMatchObject({ accepted: true, dropped: null, status: 'queued' });
    const call = await waitFor(
      async () =>
        receiver.calls.find(
          (c) =>
            (c.body as { data?: { remoteMessageId?: string } } | null)?.data?.remoteMessageId ===
            inbound.body.data.remoteMessageId,
        ) ?? null,
      { what: 'chatapp_web.message.received at the test-mode webhook' },
    );
    expect(call.body).toMatchObject({
      event: 'chatapp_web.message.received',
      data: { accountId: 'test-line', text: 'Is my order ready?', from: { phone: from }, isGroup: false },
    });

    await post(owner, '/api/v2/test/web-sessions/test-line/inbound', { from, text: 'STOP' }).expect(201);
    expect(await suppressed(owner, from)).toEqual([
      expect.objectContaining({ recipient: from, channel: 'chatapp_web', reason: 'keyword' }),
    ]);
    expect(await suppressed(acc.key, from)).toEqual([]);

    expectError(
      await post(other, '/api/v2/test/web-sessions/test-line/inbound', { from, text: 'hi' }),
      404,
      'NOT_FOUND',
    );
    for (const [path, body] of [
      ['/api/v2/test/web-sessions', { name: 'has space' }],
      ['/api/v2/test/web-sessions', {}],
      ['/api/v2/test/web-sessions/test-line/inbound', { from: 'nobody', text: 'hi' }],
      ['/api/v2/test/web-sessions/test-line/inbound', { from }],
    ] as const)
      expectError(await post(owner, path, body), 400, 'VALIDATION_ERROR');
  });
});
