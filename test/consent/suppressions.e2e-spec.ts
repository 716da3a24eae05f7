import { createTestApp, TestAccount, TestApp } from '../support/app';
import { DataSource } from 'typeorm';
import { expectEnvelope } from '../support/envelope';
import { isMysqlRun } from '../support/database';
import { accountIdOf } from '../../src/common/account-id';
import { suppressionStatements, SuppressionsRepository } from '../../src/consent/suppressions.repository';
import { UnitOfWork } from '../../src/database/unit-of-work';

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

// The policy's lookups of many windows in flight go to the database as one read (suppressionStatements.hits):
// each lookup still gets only its own account's entries, and the read walks the unique index.
describe('Suppression lookups of windows in flight (e2e)', () => {
  let t: TestApp;
  const ds = () => t.app.get(DataSource);
  const entry = (id: string, accountId: string, hash: string, channel: string, scope: string) => [
    id,
    accountId,
    hash,
    channel,
    scope,
    'api',
    Date.now(),
  ];
  beforeAll(async () => {
    t = await createTestApp({ env: { SCHEDULERS_ENABLED: 'false' } });
    const rows = [
      entry('sup_a1', 'acc_sup_a', 'h_shared', 'all', 'all'),
      entry('sup_a2', 'acc_sup_a', 'h_a_only', 'email', 'marketing'),
      entry('sup_b1', 'acc_sup_b', 'h_b_only', 'local_sms', 'all'),
      // Many other entries of the same accounts: the plan is judged on lists of some size.
      ...Array.from({ length: 3000 }, (_, i) => entry(`sup_x${i}`, `acc_sup_${'ab'[i % 2]}`, `h_${i}`, 'all', 'all')),
    ];
    for (let i = 0; i < rows.length; i += 200) {
      const chunk = rows.slice(i, i + 200);
      await ds().query(
        `INSERT INTO suppressions (id, account_id, recipient_hash, channel, scope, reason, created_at) VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
        chunk.flat(),
      );
    }
    if (isMysqlRun()) await ds().query('ANALYZE TABLE suppressions');
  });
  afterAll(async () => {
    await t.close();
  });

  it("lookups made together are one read, and each gets only its own account's entries on its channels", async () => {
    const repo = t.app.get(SuppressionsRepository);
    const uow = t.app.get(UnitOfWork);
    const before = uow.statements;
    const [a, b, aSms] = await Promise.all([
      repo.hits(accountIdOf('acc_sup_a'), ['h_shared', 'h_a_only', 'h_b_only'], ['email', 'all']),
      repo.hits(accountIdOf('acc_sup_b'), ['h_shared', 'h_a_only', 'h_b_only'], ['local_sms', 'all']),
      repo.hits(accountIdOf('acc_sup_a'), ['h_shared', 'h_b_only'], ['local_sms', 'all']),
    ]);
    expect(uow.statements - before).toBe(1);
    const keys = (hits: { accountId: string; recipientHash: string; channel: string; scope: string }[]) =>
      hits.map((h) => `${h.accountId}/${h.recipientHash}/${h.channel}/${h.scope}`).sort();
    expect(keys(a)).toEqual(['acc_sup_a/h_a_only/email/marketing', 'acc_sup_a/h_shared/all/all']);
    expect(keys(b)).toEqual(['acc_sup_b/h_b_only/local_sms/all']);
    expect(keys(aSms)).toEqual(['acc_sup_a/h_shared/all/all']);
  });

  it('the read of several lookups walks ux_suppressions_recipient, one range per lookup', async () => {
    const stmt = suppressionStatements.hits([
      { accountId: accountIdOf('acc_sup_a'), hashes: ['h_shared', 'h_1'], channels: ['local_sms', 'all'] },
      { accountId: accountIdOf('acc_sup_b'), hashes: ['h_b_only'], channels: ['email', 'all'] },
    ]);
    if (isMysqlRun()) {
      const rows: Record<string, unknown>[] = await ds().query(`EXPLAIN ${stmt.sql}`, stmt.params);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ key: 'ux_suppressions_recipient', type: 'range' });
    } else {
      const rows: { detail: string }[] = await ds().query(`EXPLAIN QUERY PLAN ${stmt.sql}`, stmt.params);
      const plan = rows.map((r) => r.detail).join(' | ');
      expect(plan).toMatch(
        /SEARCH suppressions USING INDEX ux_suppressions_recipient \(account_id=\? AND recipient_hash=\? AND channel=\?\)/,
      );
      expect(plan).not.toMatch(/SCAN suppressions/);
    }
  });
});
