import { createTestApp, TestApp } from '../support/app';
import { expectError } from '../support/envelope';
import { INTAKE_TEST_ENV, jobCount, phone, post, rowCount, sms } from '../support/bulk-helpers';

// Also: bulk-intake-idempotency.e2e-spec.ts (Idempotency-Key), bulk-intake-failures.e2e-spec.ts (failures after rows were stored).
describe('Bulk intake (e2e)', () => {
  let t: TestApp;
  // No background loops needed for the intake rules: jobs stay `validating`.
  beforeAll(async () => {
    t = await createTestApp({ env: INTAKE_TEST_ENV });
  });
  afterAll(async () => {
    await t.close();
  });

  it('202 with exactly the spec body, status validating', async () => {
    const acc = await t.createAccount();
    const res = await post(t, acc.key, { name: 'Promo', messagesPerSecond: 3, messages: [sms(), sms()] });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      success: true,
      id: expect.stringMatching(/^bulk_/),
      name: 'Promo',
      status: 'validating',
      messagesPerSecond: 3,
      pauseReason: null,
      // Issue 28: when held marketing rows wait for the sending hours (null otherwise).
      quietUntil: null,
      total: 2,
      validatedCount: 0,
      counts: { pending: 2, sent: 0, failed: 0, cancelled: 0 },
      // Issue 13: receipts' counts beside the spec's (zeros until something is sent).
      delivery: { delivered: 0, read: 0, undelivered: 0 },
      errorCode: null,
      errorMessage: null,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      livemode: true,
    });
    const got = await t.http().get(`/api/v2/messages/bulk/${res.body.id}`).set('X-API-Key', acc.key);
    expect(got.status).toBe(200);
    const { success: _s, ...job } = res.body;
    expect(got.body).toEqual({ success: true, job });
  });

  it('accepts top-level fields after messages, and name omitted -> null', async () => {
    const acc = await t.createAccount();
    const res = await post(t, acc.key, `{"messages":[${JSON.stringify(sms())}],"messagesPerSecond":10}`);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ name: null, messagesPerSecond: 10, total: 1 });
  });

  describe('body rules', () => {
    it.each([[0], [11], [2.5], ['5'], [null], [undefined], [-1]])(
      '400 MESSAGES_PER_SECOND_INVALID for %p',
      async (mps) => {
        const acc = await t.createAccount();
        expectError(
          await post(t, acc.key, { messagesPerSecond: mps, messages: [sms()] }),
          400,
          'MESSAGES_PER_SECOND_INVALID',
        );
        expect(await jobCount(t, acc.id)).toBe(0);
      },
    );

    it.each([[[]], ['x'], [undefined], [{}], [null]])('400 MESSAGES_REQUIRED for messages=%p', async (messages) => {
      const acc = await t.createAccount();
      expectError(await post(t, acc.key, { messagesPerSecond: 1, messages }), 400, 'MESSAGES_REQUIRED');
      expect(await jobCount(t, acc.id)).toBe(0);
    });

    it.each([
      ['[]'],
      ['"text"'],
      ['{"messagesPerSecond":1,"messages":['],
      ['not json'],
      [''],
      ['42'],
      ['{"messages":[],}'],
    ])('400 INVALID_REQUEST_BODY for %p', async (raw) => {
      const acc = await t.createAccount();
      expectError(await post(t, acc.key, raw), 400, 'INVALID_REQUEST_BODY');
      expect(await jobCount(t, acc.id)).toBe(0);
    });

    it('400 INVALID_REQUEST_BODY when name is not a string', async () => {
      const acc = await t.createAccount();
      expectError(
        await post(t, acc.key, { name: 5, messagesPerSecond: 1, messages: [sms()] }),
        400,
        'INVALID_REQUEST_BODY',
      );
    });

    it.each([
      ['a number', 5],
      ['null', null],
      ['an array', [sms()]],
      ['a string', 'hi'],
      ['an array to', { ...sms(), to: [phone(), phone()] }],
      ['scheduleAt', { ...sms(), scheduleAt: '2030-01-01T00:00:00Z' }],
    ])('400 INVALID_MESSAGE naming the index for %s, no job or rows left', async (_what, bad) => {
      const acc = await t.createAccount();
      const before = await rowCount(t);
      const res = await post(t, acc.key, { messagesPerSecond: 1, messages: [sms(), sms(), bad, sms()] });
      expectError(res, 400, 'INVALID_MESSAGE');
      expect(res.body.error).toContain('messages[2]');
      expect(await jobCount(t, acc.id)).toBe(0);
      expect(await rowCount(t)).toBe(before);
    });

    it('a 400 after many stored batches leaves no job and no rows', async () => {
      const acc = await t.createAccount();
      const before = await rowCount(t);
      const messages = Array.from({ length: 2500 }, () => sms());
      // Invalid field after the rows: discovered only at the end.
      const res = await post(t, acc.key, `{"messages":${JSON.stringify(messages)},"messagesPerSecond":0}`);
      expectError(res, 400, 'MESSAGES_PER_SECOND_INVALID');
      expect(await jobCount(t, acc.id)).toBe(0);
      expect(await rowCount(t)).toBe(before);
    });
  });

  describe('account rules', () => {
    it('403 SUBSCRIPTION_INACTIVE before any job exists', async () => {
      const acc = await t.createAccount({ subscriptionActive: false });
      expectError(await post(t, acc.key, { messagesPerSecond: 1, messages: [sms()] }), 403, 'SUBSCRIPTION_INACTIVE');
      expect(await jobCount(t, acc.id)).toBe(0);
    });

    it('403 FORBIDDEN without messages:create or with an unverified phone; 401 without a key', async () => {
      const acc = await t.createAccount();
      const reader = await t.memberKey(acc.id, ['messages:read']);
      expectError(await post(t, reader, { messagesPerSecond: 1, messages: [sms()] }), 403, 'FORBIDDEN');
      const unverified = await t.createAccount({ phoneVerified: false });
      expectError(await post(t, unverified.key, { messagesPerSecond: 1, messages: [sms()] }), 403, 'FORBIDDEN');
      expectError(
        await t.http().post('/api/v2/messages/bulk').set('Idempotency-Key', 'x').send({}),
        401,
        'UNAUTHORIZED',
      );
      expect(await jobCount(t, acc.id)).toBe(0);
    });

    it('a member with messages:create may create; messages:read is needed to read', async () => {
      const acc = await t.createAccount();
      const creator = await t.memberKey(acc.id, ['messages:create']);
      const res = await post(t, creator, { messagesPerSecond: 1, messages: [sms()] });
      expect(res.status).toBe(202);
      expectError(
        await t.http().get(`/api/v2/messages/bulk/${res.body.id}`).set('X-API-Key', creator),
        403,
        'FORBIDDEN',
      );
      const reader = await t.memberKey(acc.id, ['messages:read']);
      expect((await t.http().get(`/api/v2/messages/bulk/${res.body.id}`).set('X-API-Key', reader)).status).toBe(200);
    });

    it('another account job is 404 JOB_NOT_FOUND on every route', async () => {
      const owner = await t.createAccount();
      const other = await t.createAccount();
      const res = await post(t, owner.key, { messagesPerSecond: 1, messages: [sms()] });
      const id = res.body.id;
      expectError(await t.http().get(`/api/v2/messages/bulk/${id}`).set('X-API-Key', other.key), 404, 'JOB_NOT_FOUND');
      expectError(
        await t.http().get(`/api/v2/messages/bulk/${id}/rows`).set('X-API-Key', other.key),
        404,
        'JOB_NOT_FOUND',
      );
      for (const op of ['retry-failed', 'pause', 'resume', 'cancel']) {
        expectError(
          await t.http().post(`/api/v2/messages/bulk/${id}/${op}`).set('X-API-Key', other.key),
          404,
          'JOB_NOT_FOUND',
        );
      }
      expectError(
        await t.http().get('/api/v2/messages/bulk/bulk_nope').set('X-API-Key', owner.key),
        404,
        'JOB_NOT_FOUND',
      );
      const list = await t.http().get('/api/v2/messages/bulk').set('X-API-Key', other.key);
      expect(list.body.data.jobs).toEqual([]);
    });
  });

  it('lists jobs newest first with a cursor', async () => {
    const acc = await t.createAccount();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await post(t, acc.key, { messagesPerSecond: 1, messages: [sms()] })).body.id);
    const p1 = await t.http().get('/api/v2/messages/bulk?limit=3').set('X-API-Key', acc.key);
    expect(p1.status).toBe(200);
    expect(p1.body.data.jobs.map((j: { id: string }) => j.id)).toEqual(ids.slice(2).reverse());
    expect(p1.body.data.hasMore).toBe(true);
    const p2 = await t
      .http()
      .get(`/api/v2/messages/bulk?limit=3&cursor=${encodeURIComponent(p1.body.data.nextCursor)}`)
      .set('X-API-Key', acc.key);
    expect(p2.body.data.jobs.map((j: { id: string }) => j.id)).toEqual(ids.slice(0, 2).reverse());
    expect(p2.body.data).toMatchObject({ hasMore: false, nextCursor: null });
    expectError(
      await t.http().get('/api/v2/messages/bulk?cursor=forged.abc').set('X-API-Key', acc.key),
      400,
      'VALIDATION_ERROR',
    );
  });
});
