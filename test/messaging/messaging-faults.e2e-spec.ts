import { createTestApp, TestAccount, TestApp } from '../support/app';
import { PHONE, useMessagingApp } from '../support/messaging-helpers';

describe('Messaging: send, log, sandbox (e2e): sandbox faults', () => {
  let t: TestApp;
  let acc: TestAccount;
  const { send, sms, account, delivered } = useMessagingApp(
    (app) => (t = app),
    (a) => (acc = a),
  );

  afterEach(async () => {
    await t.admin('delete', '/admin/v1/sandbox/faults').expect(200);
  });

  it('rate_limit -> 429 PROVIDER_RATE_LIMITED with retryAfterSeconds, refunded', async () => {
    await t
      .admin('post', '/admin/v1/sandbox/faults')
      .send({ kind: 'rate_limit', count: 1, accountId: acc.id })
      .expect(201);
    const res = await send(sms());
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ success: false, code: 'PROVIDER_RATE_LIMITED', retryAfterSeconds: 1 });
    expect((await account()).walletBalance).toBe(100_000);
    const next = await send(sms());
    expect(next.status).toBe(201);
  });

  it('unavailable -> 503 PROVIDER_UNAVAILABLE, balance refunded, message failed in the log', async () => {
    await t
      .admin('post', '/admin/v1/sandbox/faults')
      .send({ channel: 'local_sms', kind: 'unavailable', count: 1, accountId: acc.id })
      .expect(201);
    const res = await send(sms());
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('PROVIDER_UNAVAILABLE');
    expect((await account()).walletBalance).toBe(100_000);
    const log = await t.http().get('/api/v2/messages').set('X-API-Key', acc.key);
    expect(log.body.data.messages).toEqual([
      expect.objectContaining({ status: 'failed', errorCode: 'PROVIDER_UNAVAILABLE', cost: 0 }),
    ]);
    expect(await delivered('')).toEqual([]);
  });

  it('a channel fault leaves other channels alone', async () => {
    await t
      .admin('post', '/admin/v1/sandbox/faults')
      .send({ channel: 'email', kind: 'unavailable', count: 1, accountId: acc.id })
      .expect(201);
    expect((await send(sms())).status).toBe(201);
    expect(
      (await send({ to: 'a@b.co', channel: 'email', messageType: 'free_text', content: { subject: 's', text: 't' } }))
        .status,
    ).toBe(503);
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
      await fast
        .admin('post', '/admin/v1/sandbox/faults')
        .send({ kind: 'timeout', count: 1, accountId: a.id })
        .expect(201);
      const res = await fast.http().post('/api/v2/messages/send').set('X-API-Key', a.key).send(sms());
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('PROVIDER_UNAVAILABLE');
      expect((await fast.http().get('/api/v2/account').set('X-API-Key', a.key)).body.data.walletBalance).toBe(100_000);
    } finally {
      await fast.close();
    }
  });

  it('a batch whose first message hits a provider error answers with that error; the rest are failed and refunded', async () => {
    await t
      .admin('post', '/admin/v1/sandbox/faults')
      .send({ kind: 'unavailable', count: 1, accountId: acc.id })
      .expect(201);
    const all = await send(sms([PHONE, '+966501111111', '+966502222222']));
    expect(all.status).toBe(503);
    expect(all.body.code).toBe('PROVIDER_UNAVAILABLE');
    expect((await account()).walletBalance).toBe(100_000);
    const log = (await t.http().get('/api/v2/messages').set('X-API-Key', acc.key)).body.data.messages;
    expect(log).toHaveLength(3);
    expect(
      log.every(
        (m: { status: string; errorCode: string; cost: number }) =>
          m.status === 'failed' && m.errorCode === 'PROVIDER_UNAVAILABLE' && m.cost === 0,
      ),
    ).toBe(true);
    expect(await delivered('')).toEqual([]);
  });

  it('a global fault hits the next `count` calls of any account and channel; DELETE clears what is left', async () => {
    const other = await t.createAccount();
    const fault = await t.admin('post', '/admin/v1/sandbox/faults').send({ kind: 'rate_limit', count: 2 });
    expect(fault.status).toBe(201);
    expect(fault.body.data.fault).toEqual({
      id: expect.any(String),
      channel: null,
      accountId: null,
      kind: 'rate_limit',
      count: 2,
      delayMs: null,
    });
    expect((await send(sms())).status).toBe(429);
    expect(
      (
        await send(
          { to: 'a@b.co', channel: 'email', messageType: 'free_text', content: { subject: 's', text: 't' } },
          other.key,
        )
      ).status,
    ).toBe(429);
    expect((await send(sms())).status).toBe(201);
    await t.admin('post', '/admin/v1/sandbox/faults').send({ kind: 'unavailable', count: 5 }).expect(201);
    const cleared = await t.admin('delete', '/admin/v1/sandbox/faults');
    expect(cleared.status).toBe(200);
    expect(cleared.body).toEqual({ success: true, data: { cleared: 1 } });
    expect((await send(sms())).status).toBe(201);
  });

  it('faults and deliveries are shared by replicas: a fault posted to one is consumed once by another', async () => {
    const replica = await createTestApp({
      databaseUrl: t.databaseUrl,
      env: { SCHEDULERS_ENABLED: 'false', SANDBOX_FAULT_REFRESH_MS: '0' },
    });
    try {
      await t
        .admin('post', '/admin/v1/sandbox/faults')
        .send({ kind: 'unavailable', count: 1, accountId: acc.id })
        .expect(201);
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
