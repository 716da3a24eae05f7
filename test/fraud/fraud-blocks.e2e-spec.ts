import { FraudSweeper } from '../../src/fraud/fraud-sweeper';
import { TestAccount, TestApp, waitFor } from '../support/app';
import { expectError } from '../support/envelope';
import { createTestKey } from '../support/test-mode-helpers';
import { startReceiver, WebhookReceiver } from '../support/webhook-receiver';
import { fraudApp, fraudHelpers, saNumber } from './fraud-helpers';

// Small thresholds: a prefix is judged from 3 codes; 4 new numbers a minute; 2 accounts make a platform block.
const ENV = {
  FRAUD_MIN_SENDS: '3',
  FRAUD_NEW_NUMBERS_PER_MINUTE: '4',
  FRAUD_PLATFORM_ACCOUNTS: '2',
  WEBHOOK_DELIVERY_INTERVAL_MS: '20',
  WEBHOOK_ENDPOINT_RETRY_SCHEDULE_MS: '0,40,80',
};

describe('Fraud guard: blocks, lifting, velocity and the platform (e2e)', () => {
  let t: TestApp;
  let shiftMs = 0;
  let receiver: WebhookReceiver;
  const h = fraudHelpers(() => t);

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await fraudApp(ENV, () => shiftMs);
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });
  beforeEach(() => {
    shiftMs = 0;
  });

  /** Three unchecked codes to `prefix4`, then the fourth raises the block: its 429. */
  async function trip(acc: TestAccount, prefix4: string) {
    for (let i = 1; i <= 3; i++) expect((await h.send(acc, saNumber(prefix4, i))).status).toBe(201);
    const res = await h.send(acc, saNumber(prefix4, 4));
    expectError(res, 429, 'FRAUD_SUSPECTED', new RegExp(`\\+966${prefix4}`));
    return res;
  }

  /** The blocks in the `type` events the receiver got (Standard Webhooks bodies: `{ type, timestamp, data }`). */
  const events = (type: string) =>
    receiver.calls
      .map((c) => c.body as { type: string; data: { block: { id: string } } })
      .filter((b) => b.type === type)
      .map((b) => b.data.block);

  it('raises a block on low conversion with its event; the owner lifts it and codes go out again', async () => {
    const acc = await t.createAccount();
    const ep = await t
      .http()
      .post('/api/v2/webhooks/endpoints')
      .set('X-API-Key', acc.key)
      .send({
        url: receiver.url,
        events: ['verification.*'],
      });
    expect(ep.status).toBe(201);
    const before = await h.wallet(acc);
    await trip(acc, '5011');
    // Nothing stored or paid for the refused code.
    expect(await h.paidTo(acc, '+9665011')).toBe(3);
    expect(before - (await h.wallet(acc))).toBe(3 * t.config.billing.prices.local_sms);

    const listed = await h.blocks(acc);
    expect(listed.status).toBe(200);
    const [block] = listed.body.data.blocks;
    expect(block).toMatchObject({
      prefix: '+9665011',
      scope: 'account',
      reason: 'low_conversion',
      sends: 3,
      verified: 0,
      active: true,
      endedAt: null,
    });
    await waitFor(async () => events('verification.fraud_blocked').some((b) => b.id === block.id), {
      what: 'fraud_blocked event',
    });

    const lifted = await h.lift(acc, block.id);
    expect(lifted.status).toBe(200);
    expect(lifted.body.data.block).toMatchObject({ id: block.id, active: false, endReason: 'lifted' });
    expect(lifted.body.data.block.endedAt).toEqual(expect.any(String));
    expectError(await h.lift(acc, block.id), 409, 'INVALID_STATE');
    await waitFor(async () => events('verification.fraud_unblocked').some((b) => b.id === block.id), {
      what: 'fraud_unblocked event',
    });
    // Judged afresh after the lift: a real user gets a code at once.
    expect(await h.signIn(acc, saNumber('5011', 5))).toBe(200);
    expect((await h.blocks(acc, '?active=true')).body.data.blocks).toEqual([]);
  });

  it('keeps blocks to their account: another owner gets 404, a member key 403, and other prefixes go out', async () => {
    const acc = await t.createAccount();
    const other = await t.createAccount();
    await trip(acc, '5022');
    const id = (await h.blocks(acc)).body.data.blocks[0].id as string;
    expectError(await h.lift(other, id), 404, 'NOT_FOUND');
    expect((await h.blocks(other)).body.data.blocks).toEqual([]);
    expect((await h.send(other, saNumber('5022', 9))).status).toBe(201);
    expect(await h.signIn(acc, saNumber('5033', 1))).toBe(200);
    const member = await t.memberKey(acc.id, ['messages:read', 'messages:create']);
    const asMember = await t.http().get('/api/v2/verification/fraud-blocks').set('X-API-Key', member);
    expectError(asMember, 403, 'FORBIDDEN');
    expectError(await h.blocks(acc, '?limit=0'), 400, 'VALIDATION_ERROR');
    expectError(await h.blocks(acc, '?cursor=nope'), 400, 'VALIDATION_ERROR');
  });

  it('blocks a burst of new numbers before any conversion data exists (velocity)', async () => {
    const acc = await t.createAccount();
    // The counts are per minute: start at the beginning of one, so the burst stays inside it.
    shiftMs = (Math.floor(Date.now() / 60_000) + 1) * 60_000 + 1000 - Date.now();
    // Known numbers: checked codes, so the conversion rule stays quiet.
    for (let i = 1; i <= 4; i++) expect(await h.signIn(acc, saNumber('5044', i))).toBe(200);
    const res = await h.send(acc, saNumber('5044', 5));
    expectError(res, 429, 'FRAUD_SUSPECTED');
    expect((await h.blocks(acc, '?active=true')).body.data.blocks).toEqual([
      expect.objectContaining({ prefix: '+9665044', reason: 'velocity', sends: 4, verified: 4 }),
    ]);
    expect(
      await h.metric('verification_fraud_blocks_total', 'scope="account",reason="velocity",mode="live"'),
    ).toBeGreaterThan(0);
  });

  it('ends a block when its window has passed: the sweep closes it with its event, and codes go out', async () => {
    const acc = await t.createAccount();
    await t
      .http()
      .post('/api/v2/webhooks/endpoints')
      .set('X-API-Key', acc.key)
      .send({
        url: receiver.url,
        events: ['verification.fraud_unblocked'],
      });
    await trip(acc, '5055');
    const id = (await h.blocks(acc)).body.data.blocks[0].id as string;
    shiftMs = t.config.fraud.windowMs + 1000;
    expect((await h.blocks(acc)).body.data.blocks[0]).toMatchObject({ id, active: false, endReason: 'expired' });
    await t.app.get(FraudSweeper).sweep();
    await waitFor(async () => events('verification.fraud_unblocked').some((b) => b.id === id), {
      what: 'fraud_unblocked event of the expired block',
    });
    // The old codes left the window with it.
    expect(await h.signIn(acc, saNumber('5055', 7))).toBe(200);
  });

  it('closes a block that ran out before the sweep, with its event, when the prefix trips again', async () => {
    const acc = await t.createAccount();
    await t
      .http()
      .post('/api/v2/webhooks/endpoints')
      .set('X-API-Key', acc.key)
      .send({
        url: receiver.url,
        events: ['verification.*'],
      });
    await trip(acc, '5099');
    const first = (await h.blocks(acc)).body.data.blocks[0].id as string;
    // No sweep in between: the new block takes the prefix's key from the one whose time ran out.
    shiftMs = t.config.fraud.windowMs + 1000;
    await trip(acc, '5099');
    const listed = (await h.blocks(acc)).body.data.blocks as { id: string; active: boolean; endReason: string }[];
    expect(listed.map((b) => [b.id === first, b.active, b.endReason])).toEqual([
      [false, true, null],
      [true, false, 'expired'],
    ]);
    await waitFor(async () => events('verification.fraud_unblocked').some((b) => b.id === first), {
      what: 'fraud_unblocked event of the block that ran out',
    });
  });

  it('raises a platform block when the prefix is blocked in enough accounts; only the operator lifts it', async () => {
    const [a, b, c] = [await t.createAccount(), await t.createAccount(), await t.createAccount()];
    await trip(a, '5066');
    expect((await h.send(c, saNumber('5066', 8))).status).toBe(201);
    await trip(b, '5066');
    const refused = await h.send(c, saNumber('5066', 9));
    expectError(refused, 429, 'FRAUD_SUSPECTED');

    const platform = (await h.blocks(c)).body.data.blocks;
    expect(platform).toEqual([
      expect.objectContaining({ prefix: '+9665066', scope: 'platform', reason: 'many_accounts', accounts: 2 }),
    ]);
    expectError(await h.lift(c, platform[0].id), 403, 'FORBIDDEN');
    const listed = await t.admin('get', '/admin/v1/fraud-blocks').query({ scope: 'platform', active: 'true' });
    expect(listed.status).toBe(200);
    expect(listed.body.data.blocks.map((x: { id: string }) => x.id)).toContain(platform[0].id);
    expect(
      await h.metric('verification_fraud_blocks_total', 'scope="platform",reason="many_accounts",mode="live"'),
    ).toBe(1);

    const lifted = await t.admin('delete', `/admin/v1/fraud-blocks/${platform[0].id}`);
    expect(lifted.status).toBe(200);
    expect(lifted.body.data.block).toMatchObject({ scope: 'platform', active: false, endReason: 'lifted' });
    expect(await h.signIn(c, saNumber('5066', 10))).toBe(200);
    // The accounts' own blocks stay until their owners (or the operator) lift them.
    expectError(await h.send(a, saNumber('5066', 11)), 429, 'FRAUD_SUSPECTED');
    expectError(await t.admin('delete', '/admin/v1/fraud-blocks/frb_unknown'), 404, 'NOT_FOUND');
    expectError(await t.admin('delete', `/admin/v1/fraud-blocks/${platform[0].id}`), 409, 'INVALID_STATE');
  });

  it("an account's test mode is not another account: its block never makes a platform block", async () => {
    const a = await t.createAccount();
    const test = await createTestKey(t, a.key);
    await trip(a, '5067');
    await trip({ id: `test_${a.id}`, key: test.key, keyId: test.id }, '5067');
    const other = await t.createAccount();
    expect((await h.send(other, saNumber('5067', 9))).status).toBe(201);
    const listed = await t.admin('get', '/admin/v1/fraud-blocks').query({ scope: 'platform', active: 'true' });
    expect(listed.body.data.blocks.filter((x: { prefix: string }) => x.prefix === '+9665067')).toEqual([]);
  });

  it('leaves email codes alone (no phone prefix)', async () => {
    const acc = await t.createAccount();
    for (let i = 1; i <= 6; i++) expect((await h.send(acc, `user${i}@example.com`, 'email')).status).toBe(201);
    expect((await h.blocks(acc)).body.data.blocks).toEqual([]);
  });
});

describe('Fraud guard switched off (e2e)', () => {
  it('FRAUD_GUARD_ENABLED=false sends every code', async () => {
    const t = await fraudApp({ FRAUD_GUARD_ENABLED: 'false', FRAUD_MIN_SENDS: '1' });
    try {
      const h = fraudHelpers(() => t);
      const acc = await t.createAccount();
      for (let i = 1; i <= 5; i++) expect((await h.send(acc, saNumber('5077', i))).status).toBe(201);
      expect((await h.blocks(acc)).body.data.blocks).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
