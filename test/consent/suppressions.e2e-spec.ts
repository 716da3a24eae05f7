import { createTestApp, TestAccount, TestApp } from '../support/app';
import { expectEnvelope } from '../support/envelope';

// Issue 28 item 2 and the single-send part of item 3: the account's suppression list over the API,
// and a send to a suppressed recipient refused before anything is paid.
describe('Suppression list (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const add = (acc: TestAccount, entries: unknown, key = acc.key) =>
    t.http().post('/api/v2/suppressions').set('X-API-Key', key).send({ entries });
  const list = (acc: TestAccount, query = '') => t.http().get(`/api/v2/suppressions${query}`).set('X-API-Key', acc.key);
  const sms = (acc: TestAccount, to: string) =>
    t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send({ to, channel: 'local_sms', messageType: 'free_text', content: { text: 'Your order shipped' } });
  const wallet = async (acc: TestAccount): Promise<number> =>
    (await t.http().get('/api/v2/account').set('X-API-Key', acc.key).expect(200)).body.data.walletBalance;

  it('adds entries idempotently (normalised like `to`), lists them with filters and a cursor, removes them', async () => {
    const acc = await t.createAccount();
    const first = await add(acc, [
      { recipient: '0501234567' },
      { recipient: 'Someone@Example.com', channel: 'email', scope: 'all' },
    ]);
    expect(first.status).toBe(200);
    expect(first.body.data.suppressions).toEqual([
      expect.objectContaining({
        recipient: '+966501234567',
        channel: 'all',
        scope: 'marketing',
        reason: 'api',
        source: acc.keyId,
      }),
      expect.objectContaining({ recipient: 'someone@example.com', channel: 'email', scope: 'all', reason: 'api' }),
    ]);
    const again = await add(acc, [{ recipient: '+966501234567', scope: 'all' }]);
    expect(again.body.data.suppressions).toEqual([
      expect.objectContaining({ id: first.body.data.suppressions[0].id, scope: 'all' }),
    ]);

    // Entries added in one call share their time: the cursor orders them by id then.
    const page1 = await list(acc, '?limit=1');
    expect(page1.status).toBe(200);
    expect(page1.body.data).toMatchObject({ hasMore: true, suppressions: [expect.anything()] });
    const page2 = await list(acc, `?limit=1&cursor=${encodeURIComponent(page1.body.data.nextCursor)}`);
    expect(page2.body.data).toMatchObject({ hasMore: false, nextCursor: null, suppressions: [expect.anything()] });
    expect(
      [...page1.body.data.suppressions, ...page2.body.data.suppressions]
        .map((e: { recipient: string }) => e.recipient)
        .sort(),
    ).toEqual(['+966501234567', 'someone@example.com']);
    expect((await list(acc, '?channel=email')).body.data.suppressions).toHaveLength(1);
    expect((await list(acc, '?recipient=%2B966501234567')).body.data.suppressions).toHaveLength(1);
    expect((await list(acc, '?reason=keyword')).body.data.suppressions).toEqual([]);
    // A client may say why: an email provider's bounce, say.
    const bounced = await add(acc, [
      { recipient: 'gone@example.com', channel: 'email', scope: 'all', reason: 'bounce' },
    ]);
    expect(bounced.status).toBe(200);
    expect((await list(acc, '?reason=bounce')).body.data.suppressions).toEqual([
      expect.objectContaining({ recipient: 'gone@example.com', reason: 'bounce', scope: 'all' }),
    ]);

    const other = await t.createAccount();
    expect((await list(other)).body.data.suppressions).toEqual([]);

    const removed = await t.http().delete('/api/v2/suppressions/%2B966501234567').set('X-API-Key', acc.key);
    expect(removed.status).toBe(200);
    expect(removed.body.data).toEqual({ removed: 1 });
    const gone = await t.http().delete('/api/v2/suppressions/%2B966501234567').set('X-API-Key', acc.key);
    expectEnvelope(gone, 404, 'NOT_FOUND');
    const wrongChannel = await t
      .http()
      .delete('/api/v2/suppressions/someone@example.com?channel=local_sms')
      .set('X-API-Key', acc.key);
    expectEnvelope(wrongChannel, 404, 'NOT_FOUND');
    expect((await list(acc)).body.data.suppressions).toHaveLength(2);
  });

  it('refuses bad input with 400 and writes nothing; a key without messages:create gets 403', async () => {
    const acc = await t.createAccount();
    expectEnvelope(await add(acc, []), 400, 'VALIDATION_ERROR');
    expectEnvelope(await add(acc, 'x'), 400, 'VALIDATION_ERROR');
    expectEnvelope(
      await add(acc, [{ recipient: '+966501234567' }, { recipient: 'not a number' }]),
      400,
      'VALIDATION_ERROR',
    );
    expectEnvelope(await add(acc, [{ recipient: '+966501234567', channel: 'fax' }]), 400, 'VALIDATION_ERROR');
    expectEnvelope(await add(acc, [{ recipient: '+966501234567', scope: 'some' }]), 400, 'VALIDATION_ERROR');
    // keyword, import and dnd are the service's own reasons.
    const own = await add(acc, [{ recipient: '+966501234567', reason: 'keyword' }]);
    expectEnvelope(own, 400, 'VALIDATION_ERROR');
    expect(own.body.error).toContain('reason must be one of: api, console, bounce');
    const tooMany = Array.from({ length: 1001 }, (_, i) => ({ recipient: `+9665012${String(i).padStart(5, '0')}` }));
    expectEnvelope(await add(acc, tooMany), 400, 'VALIDATION_ERROR');
    expect((await list(acc)).body.data.suppressions).toEqual([]);
    expectEnvelope(await list(acc, '?cursor=forged'), 400, 'VALIDATION_ERROR');
    expectEnvelope(await list(acc, '?limit=0'), 400, 'VALIDATION_ERROR');
    expectEnvelope(await list(acc, '?reason=whim'), 400, 'VALIDATION_ERROR');
    expectEnvelope(
      await t.http().delete('/api/v2/suppressions/nobody').set('X-API-Key', acc.key),
      400,
      'VALIDATION_ERROR',
    );

    const reader = await t.memberKey(acc.id, ['messages:read']);
    expectEnvelope(await add(acc, [{ recipient: '+966501234567' }], reader), 403, 'FORBIDDEN');
    expect((await t.http().get('/api/v2/suppressions').set('X-API-Key', reader)).status).toBe(200);
  });

  it('a send to a recipient suppressed for all messages is 400 RECIPIENT_OPTED_OUT, unpaid and unstored; scope marketing lets transactional through', async () => {
    const acc = await t.createAccount({ walletBalance: 1_000 });
    const other = await t.createAccount({ walletBalance: 1_000 });
    await add(acc, [
      { recipient: '+966501110001', scope: 'all' },
      { recipient: '+966501110002', channel: 'local_sms' },
    ]).expect(200);
    const refused = await sms(acc, '+966501110001');
    expectEnvelope(refused, 400, 'RECIPIENT_OPTED_OUT');
    expect(await wallet(acc)).toBe(1_000);
    const log = await t.http().get('/api/v2/messages').set('X-API-Key', acc.key).expect(200);
    expect(log.body.data.messages).toEqual([]);

    expect((await sms(acc, '+966501110002')).status).toBeLessThan(300); // marketing-only entry, transactional message
    expect((await sms(other, '+966501110001')).status).toBeLessThan(300); // another account's list
    const code = await t
      .http()
      .post('/api/v2/verification/send')
      .set('X-API-Key', acc.key)
      .send({ to: '+966501110001', channel: 'local_sms' });
    expectEnvelope(code, 400, 'RECIPIENT_OPTED_OUT');
    const codeMarketingOnly = await t
      .http()
      .post('/api/v2/verification/send')
      .set('X-API-Key', acc.key)
      .send({ to: '+966501110002', channel: 'local_sms' });
    expect(codeMarketingOnly.status).toBeLessThan(300); // a code is never marketing
    await t.http().delete('/api/v2/suppressions/%2B966501110001').set('X-API-Key', acc.key).expect(200);
    expect((await sms(acc, '+966501110001')).status).toBeLessThan(300);
  });
});
