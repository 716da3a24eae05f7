import { DataSource } from 'typeorm';
import { createTestApp, TestAccount, TestApp, waitFor } from '../support/app';
import { expectError } from '../support/envelope';
import { createTestKey } from '../support/test-mode-helpers';
import { getJob, phone, post, sms, waitStatus, BULK_TEST_ENV_PATIENT } from '../support/bulk-helpers';
import { HttpFake } from '../providers-fakes/http-fake';
import { SmppFake } from '../providers-fakes/smpp-fake';
import { SmtpFake } from '../providers-fakes/smtp-fake';

const TEST_BALANCE = 5_000;

describe('Test keys (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;
  let smtp: SmtpFake;
  let smsc: SmppFake;
  let cloud: HttpFake;
  let bot: HttpFake;

  beforeAll(async () => {
    [smtp, smsc, cloud, bot] = await Promise.all([
      new SmtpFake({ user: 'mailer', pass: 's3cret' }).start(),
      new SmppFake({ systemId: 'esme1', password: 'pw123' }).start(),
      new HttpFake().start(),
      new HttpFake().start(),
    ]);
    cloud.reply = (req) => ({
      status: 200,
      body: { messaging_product: 'whatsapp', messages: [{ id: `wamid.${String((req.body as { to?: string }).to)}` }] },
    });
    bot.reply = () => ({ status: 200, body: { ok: true, result: { message_id: 1, chat: { id: 1 } } } });
    t = await createTestApp({
      env: {
        ...BULK_TEST_ENV_PATIENT,
        TEST_MODE_BALANCE: String(TEST_BALANCE),
        // Receipts only when a job asks for them at once (testOptions.instantReceipts).
        SANDBOX_DELIVERED_AFTER_MS: '600000',
        PROVIDER_EMAIL: 'smtp',
        SMTP_HOST: '127.0.0.1',
        SMTP_PORT: String(smtp.port),
        SMTP_USER: 'mailer',
        SMTP_PASS: 's3cret',
        SMTP_FROM: 'Shop <no-reply@shop.example.com>',
        PROVIDER_LOCAL_SMS: 'smpp',
        SMPP_URL: smsc.url,
        SMPP_SYSTEM_ID: 'esme1',
        SMPP_PASSWORD: 'pw123',
        PROVIDER_CHATAPP: 'cloud_api',
        CHATAPP_CLOUD_BASE_URL: cloud.baseUrl,
        CHATAPP_CLOUD_TOKEN: 'cloud-token',
        CHATAPP_CLOUD_PHONE_NUMBER_ID: '1055',
        CHATAPP_CLOUD_WABA_ID: 'waba_platform',
        CHATAPP_CLOUD_APP_ID: 'app_1',
        PROVIDER_MESSAGING_BOT: 'bot_api',
        BOT_API_BASE_URL: bot.baseUrl,
        BOT_API_TOKEN: '4242:bot-secret',
      },
    });
    acc = await t.createAccount({ walletBalance: 1000, messageQuota: 50, freeMessages: 5 });
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([smtp?.stop(), smsc?.stop(), cloud?.stop(), bot?.stop()]);
  });

  const account = async (key: string) => (await t.http().get('/api/v2/account').set('X-API-Key', key)).body.data;
  const keys = async (key: string) => {
    const res = await t.http().get('/api/v2/api-keys').set('X-API-Key', key);
    expect(res.status).toBe(200);
    return res.body.data.apiKeys as { id: string; mode: string; role: string; prefix: string }[];
  };

  it('an owner creates test keys (msk_test_...); the live owner sees both modes, a test key only test keys', async () => {
    const owner = await createTestKey(t, acc.key);
    const member = await createTestKey(t, acc.key, { role: 'member', permissions: ['messages:read'] });
    expect(owner.key).toMatch(/^msk_test_[A-Za-z0-9_-]{40}$/);
    expect(member.key).toMatch(/^msk_test_/);

    const live = await keys(acc.key);
    expect(live.find((k) => k.id === acc.keyId)).toMatchObject({ mode: 'live', role: 'owner' });
    expect(live.find((k) => k.id === owner.id)).toMatchObject({
      mode: 'test',
      role: 'owner',
      prefix: owner.key.slice(0, 16),
    });
    expect(live.find((k) => k.id === member.id)).toMatchObject({ mode: 'test', role: 'member' });

    const test = await keys(owner.key);
    expect(test.map((k) => k.id).sort()).toEqual([owner.id, member.id].sort());
    expect(test.every((k) => k.mode === 'test')).toBe(true);

    // A test member key has only its permissions, as a live one.
    expectError(
      await t.http().post('/api/v2/messages/send').set('X-API-Key', member.key).send(sms()),
      403,
      'FORBIDDEN',
    );
  });

  it('a test owner key can never create, list or revoke live keys', async () => {
    const owner = await createTestKey(t, acc.key);
    expectError(
      await t
        .http()
        .post('/api/v2/api-keys')
        .set('X-API-Key', owner.key)
        .send({ name: 'x', mode: 'live', permissions: ['messages:read'] }),
      403,
      'FORBIDDEN',
      /test key cannot create live keys/,
    );
    expectError(
      await t.http().delete(`/api/v2/api-keys/${acc.keyId}`).set('X-API-Key', owner.key),
      404,
      'API_KEY_NOT_FOUND',
    );
    // Without a mode a test key creates test keys.
    const res = await t
      .http()
      .post('/api/v2/api-keys')
      .set('X-API-Key', owner.key)
      .send({ name: 'ci', permissions: ['messages:create'] });
    expect(res.status).toBe(201);
    expect(res.body.data.apiKey).toMatchObject({ mode: 'test', role: 'member' });
    expect(res.body.data.apiKey.key).toMatch(/^msk_test_/);
    // The live owner revokes a test key; it is refused from the next request on.
    const revoked = await t.http().delete(`/api/v2/api-keys/${owner.id}`).set('X-API-Key', acc.key);
    expect(revoked.status).toBe(200);
    expectError(await t.http().get('/api/v2/account').set('X-API-Key', owner.key), 401, 'UNAUTHORIZED');
  });

  it('GET /api/v2/account with a test key shows the same account, livemode false and the test balance', async () => {
    const owner = await createTestKey(t, acc.key);
    const live = await account(acc.key);
    expect(live).toMatchObject({ id: acc.id, livemode: true, walletBalance: 1000, freeMessages: 5 });
    expect(await account(owner.key)).toMatchObject({
      id: acc.id,
      livemode: false,
      walletBalance: TEST_BALANCE,
      freeMessages: 0,
      plan: { name: null, messageQuota: 0, messagesUsed: 0 },
    });
  });

  it('the operator issues a test owner key; the test twin is no account of its own to the operator', async () => {
    const res = await t.admin('post', `/admin/v1/accounts/${acc.id}/api-keys`).send({ role: 'owner', mode: 'test' });
    expect(res.status).toBe(201);
    expect(res.body.data.apiKey).toMatchObject({ role: 'owner', mode: 'test' });
    expect(res.body.data.apiKey.key).toMatch(/^msk_test_/);
    expect((await account(res.body.data.apiKey.key)).livemode).toBe(false);

    const list = await t.admin('get', '/admin/v1/accounts?limit=100');
    expect(list.status).toBe(200);
    const ids = (list.body.data.accounts as { id: string }[]).map((a) => a.id);
    expect(ids).toContain(acc.id);
    expect(ids.some((id) => id.startsWith('test_'))).toBe(false);
    for (const [method, path] of [
      ['get', `/admin/v1/accounts/test_${acc.id}`],
      ['post', `/admin/v1/accounts/test_${acc.id}/api-keys`],
      ['post', `/admin/v1/accounts/test_${acc.id}/top-up`],
      ['patch', `/admin/v1/accounts/test_${acc.id}`],
    ] as const) {
      const body = path.endsWith('top-up')
        ? { amount: 5 }
        : path.endsWith('api-keys')
          ? { role: 'owner' }
          : { name: 'x' };
      const r = await t.admin(method, path).send(body);
      expect([r.status, r.body.code]).toEqual([404, 'NOT_FOUND']);
    }
  });

  it('with real adapters configured, test sends on every channel go to the sandbox: no fake sees them, the live wallet never moves', async () => {
    const owner = await createTestKey(t, acc.key);
    const before = { live: await account(acc.key), test: await account(owner.key) };
    const send = (body: Record<string, unknown>) =>
      t.http().post('/api/v2/messages/send').set('X-API-Key', owner.key).send(body);

    const bodies = [
      sms('+966501234567', 'test sms'),
      { to: 'sara@example.org', channel: 'email', messageType: 'free_text', content: { subject: 'Hi', text: 'x' } },
      { to: '+966501234567', channel: 'chatapp', messageType: 'free_text', content: { text: 'hello' } },
    ];
    const ids: string[] = [];
    for (const body of bodies) {
      const res = await send(body);
      expect([res.status, res.body.data?.messages?.[0]?.status]).toEqual([201, 'sent']);
      ids.push(res.body.data.messages[0].id as string);
    }
    const job = await post(t, owner.key, {
      messages: [sms(phone()), sms(phone()), sms(phone())],
      messagesPerSecond: 5,
    });
    expect(job.status).toBe(202);
    const done = await waitStatus(t, owner.key, job.body.id as string, ['completed']);
    expect(done.counts).toMatchObject({ sent: 3, failed: 0 });

    expect(smsc.submits).toHaveLength(0);
    expect(smtp.received).toHaveLength(0);
    expect(cloud.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
    expect(bot.requests).toHaveLength(0);

    const after = { live: await account(acc.key), test: await account(owner.key) };
    expect(after.live).toEqual(before.live);
    expect(after.test.walletBalance).toBeLessThan(before.test.walletBalance);

    // The sandbox's own record shows them, under the account's test mode.
    const sandbox = await t.admin('get', `/admin/v1/sandbox/messages?accountId=test_${acc.id}`);
    expect((sandbox.body.data.messages as { messageId: string }[]).map((m) => m.messageId)).toEqual(
      expect.arrayContaining(ids),
    );
    expect((await getJob(t, owner.key, job.body.id as string)).counts.sent).toBe(3);

    // The same account's live key still reaches the configured adapter.
    const live = await t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send(sms('+966501234567', 'live'));
    expect(live.status).toBe(201);
    expect(smsc.submits).toHaveLength(1);
  });

  it('a test key is refused when its test twin has not enough test balance, whatever the live wallet holds', async () => {
    const rich = await t.createAccount({ walletBalance: 1_000_000 });
    const owner = await createTestKey(t, rich.key);
    const sql = 'UPDATE accounts SET wallet_balance = 0 WHERE id = ?';
    await t.app.get(DataSource).query(sql, [`test_${rich.id}`]);
    expectError(
      await t.http().post('/api/v2/messages/send').set('X-API-Key', owner.key).send(sms()),
      402,
      'INSUFFICIENT_BALANCE',
    );
    expect((await account(rich.key)).walletBalance).toBe(1_000_000);
  });

  it('a test bulk job may ask for instant receipts; pacing stays real; a live key may not ask', async () => {
    const owner = await createTestKey(t, acc.key);
    const rows = [sms(phone()), sms(phone()), sms(phone()), sms(phone())];
    expectError(
      await post(t, acc.key, { messages: rows, messagesPerSecond: 10, testOptions: { instantReceipts: true } }),
      400,
      'INVALID_REQUEST_BODY',
      /testOptions is for test keys only/,
    );
    expectError(
      await post(t, owner.key, { messages: rows, messagesPerSecond: 10, testOptions: { instant: true } }),
      400,
      'INVALID_REQUEST_BODY',
      /testOptions must be an object/,
    );
    const slow = await post(t, owner.key, { messages: [sms(phone())], messagesPerSecond: 10 });
    const res = await post(t, owner.key, {
      messages: rows,
      messagesPerSecond: 2,
      testOptions: { instantReceipts: true },
    });
    expect([slow.status, res.status]).toEqual([202, 202]);
    const done = await waitFor(
      async () => {
        const job = await getJob(t, owner.key, res.body.id as string);
        // The job's counters settle with its window, the receipts on their own: wait for both.
        return job.status === 'completed' && job.delivery.delivered === rows.length ? job : null;
      },
      { timeoutMs: 20_000, what: 'the job completed with every row delivered' },
    );
    expect(done.counts).toMatchObject({ sent: 4, failed: 0 });
    // Real pacing: 4 rows at 2/s span at least a second between the first and the last send.
    const sandbox = await t.admin('get', `/admin/v1/sandbox/messages?bulkJobId=${res.body.id as string}`);
    const times = (sandbox.body.data.messages as { deliveredAt: string }[]).map((m) => Date.parse(m.deliveredAt));
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(1000);
    // Without the option the receipt waits SANDBOX_DELIVERED_AFTER_MS (10 minutes here).
    const plain = await waitStatus(t, owner.key, slow.body.id as string, ['completed']);
    expect(plain.delivery.delivered).toBe(0);
  });
});
