import { DataSource } from 'typeorm';
import { Clock } from '../src/common/clock';
import { VerificationPurger } from '../src/verification/verification-purger';
import { createTestApp, REQUEST_ID_RE, TestAccount, TestApp } from './support/app';

// Codes are read back from the sandbox deliveries, like a user reading their phone.
const PHONE = '+966501234567';

describe('Verification codes (e2e)', () => {
  let t: TestApp;
  let db: DataSource;
  /** The app's one Clock, moved forward by the tests (expiry, send windows) instead of sleeping. */
  let shiftMs = 0;
  let phoneSeq = 1000;
  const nextPhone = () => `+96650${String(++phoneSeq).padStart(7, '0')}`;

  beforeAll(async () => {
    t = await createTestApp({ env: { VERIFICATION_SEND_LIMIT: '5', VERIFICATION_SEND_WINDOW_SECONDS: '600' } });
    db = t.app.get(DataSource);
    const clock = t.app.get(Clock);
    clock.now = () => Date.now() + shiftMs;
  });
  afterAll(async () => {
    await t.close();
  });

  const send = (acc: TestAccount | string, body: Record<string, unknown>) =>
    t.http().post('/api/v2/verification/send').set('X-API-Key', typeof acc === 'string' ? acc : acc.key).send(body);
  const check = (acc: TestAccount | string, verificationId: string, code: string) =>
    t.http().post('/api/v2/verification/check').set('X-API-Key', typeof acc === 'string' ? acc : acc.key).send({ verificationId, code });

  async function deliveries(accountId: string, to: string): Promise<{ text: string; channel: string }[]> {
    const res = await t.admin('get', '/admin/v1/sandbox/messages').query({ accountId, to });
    expect(res.status).toBe(200);
    return res.body.data.messages;
  }

  /** The code in the latest sandbox delivery to `to`. */
  async function lastCode(accountId: string, to: string): Promise<string> {
    const msgs = await deliveries(accountId, to);
    const m = /verification code is (\d+)\./.exec(msgs[msgs.length - 1]?.text ?? '');
    if (!m) throw new Error(`no code delivered to ${to}: ${JSON.stringify(msgs)}`);
    return m[1];
  }

  async function sendOk(acc: TestAccount, body: Record<string, unknown>): Promise<{ id: string; code: string }> {
    const res = await send(acc, body);
    expect(res.status).toBe(201);
    return { id: res.body.data.verificationId, code: await lastCode(acc.id, res.body.data.to) };
  }

  const wrong = (code: string) => code.replace(/^./, (d) => String((Number(d) + 1) % 10));

  function expectError(res: { status: number; body: Record<string, unknown> }, status: number, code: string): void {
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ success: false, code });
    expect(typeof res.body.error).toBe('string');
    expect(res.body.requestId).toMatch(REQUEST_ID_RE);
  }

  async function rowsOf(accountId: string): Promise<{ status: string; code_hash: string; attempts: number }[]> {
    return db.query('SELECT status, code_hash, attempts FROM verifications WHERE account_id = ?', [accountId]);
  }

  async function wallet(acc: TestAccount): Promise<number> {
    const res = await t.http().get('/api/v2/account').set('X-API-Key', acc.key);
    return res.body.data.walletBalance;
  }

  describe('send and check', () => {
    it('sends a 6-digit code by SMS (normalised number) and approves it once', async () => {
      const acc = await t.createAccount();
      const before = Date.now() + shiftMs;
      const res = await send(acc, { to: '0501234567', channel: 'local_sms' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        success: true,
        data: { verificationId: expect.stringMatching(/^ver_/), to: PHONE, channel: 'local_sms', status: 'pending', expiresAt: expect.any(String) },
      });
      const expiresAt = Date.parse(res.body.data.expiresAt);
      expect(expiresAt).toBeGreaterThanOrEqual(before + 600_000);
      expect(expiresAt).toBeLessThan(Date.now() + shiftMs + 600_000 + 1000);

      const msgs = await deliveries(acc.id, PHONE);
      expect(msgs).toHaveLength(1);
      expect(msgs[0].channel).toBe('local_sms');
      expect(msgs[0].text).toMatch(/^Your verification code is \d{6}\. It expires in 10 minutes\.$/);
      const code = await lastCode(acc.id, PHONE);

      // Stored hashed: the code is nowhere in the row.
      const [row] = await rowsOf(acc.id);
      expect(row).toMatchObject({ status: 'pending' });
      expect(row.code_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.code_hash).not.toContain(code);

      const ok = await check(acc, res.body.data.verificationId, code);
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ success: true, data: { verificationId: res.body.data.verificationId, status: 'approved', valid: true } });

      // Single use: the same code never validates again.
      const again = await check(acc, res.body.data.verificationId, code);
      expect(again.status).toBe(200);
      expect(again.body.data).toEqual({ verificationId: res.body.data.verificationId, status: 'approved', valid: false });
      expect((await rowsOf(acc.id))[0].status).toBe('approved');
    });

    it('a wrong code leaves it pending (valid:false); the right one then approves', async () => {
      const acc = await t.createAccount();
      const { id, code } = await sendOk(acc, { to: nextPhone(), channel: 'local_sms' });
      const bad = await check(acc, id, wrong(code));
      expect(bad.status).toBe(200);
      expect(bad.body.data).toEqual({ verificationId: id, status: 'pending', valid: false });
      const good = await check(acc, id, code);
      expect(good.body.data).toEqual({ verificationId: id, status: 'approved', valid: true });
    });

    it('honours codeLength 4 and 8 and expiresInMinutes in the text', async () => {
      const acc = await t.createAccount();
      const to = nextPhone();
      const four = await sendOk(acc, { to, channel: 'local_sms', codeLength: 4, expiresInMinutes: 1 });
      expect(four.code).toMatch(/^\d{4}$/);
      expect((await deliveries(acc.id, to))[0].text).toBe(`Your verification code is ${four.code}. It expires in 1 minute.`);
      const eight = await sendOk(acc, { to, channel: 'local_sms', codeLength: 8, expiresInMinutes: 90 });
      expect(eight.code).toMatch(/^\d{8}$/);
      expect((await check(acc, eight.id, eight.code)).body.data.valid).toBe(true);
    });

    it('sends by email with a subject, and the code checks', async () => {
      const acc = await t.createAccount();
      const res = await send(acc, { to: 'User@Example.com', channel: 'email' });
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ to: 'user@example.com', channel: 'email', status: 'pending' });
      const code = await lastCode(acc.id, 'user@example.com');
      expect((await check(acc, res.body.data.verificationId, code)).body.data).toMatchObject({ status: 'approved', valid: true });
    });

    it('expires: after expiresInMinutes the right code is not valid (status expired)', async () => {
      const acc = await t.createAccount();
      const { id, code } = await sendOk(acc, { to: nextPhone(), channel: 'local_sms', expiresInMinutes: 1 });
      shiftMs += 59_000;
      expect((await check(acc, id, wrong(code))).body.data).toEqual({ verificationId: id, status: 'pending', valid: false });
      shiftMs += 2_000;
      const res = await check(acc, id, code);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ verificationId: id, status: 'expired', valid: false });
      expect((await rowsOf(acc.id))[0].attempts).toBe(1); // checks after expiry consume nothing
    });

    it('sends by the official chat app channel', async () => {
      const acc = await t.createAccount();
      const to = nextPhone();
      const res = await send(acc, { to, channel: 'chatapp' });
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ to, channel: 'chatapp', status: 'pending' });
      expect((await deliveries(acc.id, to))[0].channel).toBe('chatapp');
      expect(await wallet(acc)).toBe(100_000 - t.config.billing.prices.chatapp);
      expect((await check(acc, res.body.data.verificationId, await lastCode(acc.id, to))).body.data.valid).toBe(true);
    });

    it('a verification still being sent (crash between store and send) is 404 to checks', async () => {
      const acc = await t.createAccount();
      await db.query(
        "INSERT INTO verifications (id, account_id, channel, recipient, code_hash, status, attempts, expires_at, created_at) VALUES (?, ?, 'local_sms', ?, ?, 'sending', 0, ?, ?)",
        ['ver_sendingrow', acc.id, PHONE, 'a'.repeat(64), Date.now() + shiftMs + 600_000, Date.now() + shiftMs],
      );
      expectError(await check(acc, 'ver_sendingrow', '123456'), 404, 'NOT_FOUND');
    });

    it("another account's verification is 404 NOT_FOUND (and an unknown id too)", async () => {
      const owner = await t.createAccount();
      const other = await t.createAccount();
      const { id, code } = await sendOk(owner, { to: nextPhone(), channel: 'local_sms' });
      expectError(await check(other, id, code), 404, 'NOT_FOUND');
      expectError(await check(other, 'ver_doesnotexist', code), 404, 'NOT_FOUND');
      // The foreign attempt consumed nothing: the owner still approves.
      expect((await rowsOf(owner.id))[0].attempts).toBe(0);
      expect((await check(owner, id, code)).body.data.valid).toBe(true);
    });
  });

  describe('templates', () => {
    async function smsTemplate(acc: TestAccount, name: string, content: string): Promise<string> {
      const res = await t.http().post('/api/v2/templates').set('X-API-Key', acc.key).send({ name, category: 'sms', subType: 'otp', content });
      expect(res.status).toBe(201);
      return res.body.data.template.id;
    }

    it('sends through a template with the code as variable 1', async () => {
      const acc = await t.createAccount();
      const id = await smsTemplate(acc, 'login_code', 'Acme login: {{1}} (do not share)');
      const to = nextPhone();
      const res = await send(acc, { to, channel: 'local_sms', codeLength: 7, template: { id } });
      expect(res.status).toBe(201);
      const [msg] = await deliveries(acc.id, to);
      const m = /^Acme login: (\d{7}) \(do not share\)$/.exec(msg.text);
      expect(m).not.toBeNull();
      expect((await check(acc, res.body.data.verificationId, (m as RegExpExecArray)[1])).body.data).toMatchObject({ status: 'approved', valid: true });
      expect(await wallet(acc)).toBe(100_000 - t.config.billing.prices.local_sms);
    });

    it('400 from the messaging validator for a template with two variables or an unknown one; nothing left', async () => {
      const acc = await t.createAccount();
      const id = await smsTemplate(acc, 'two_vars', 'Hi {{1}}, your code is {{2}}');
      const to = nextPhone();
      expectError(await send(acc, { to, channel: 'local_sms', template: { id } }), 400, 'TEMPLATE_VARIABLES_MISMATCH');
      expectError(await send(acc, { to, channel: 'local_sms', template: { id: 'tpl_nope' } }), 400, 'TEMPLATE_NOT_FOUND');
      expect(await rowsOf(acc.id)).toHaveLength(0);
      expect(await deliveries(acc.id, to)).toHaveLength(0);
    });
  });

  describe('attempt limits', () => {
    it('after 5 wrong checks: 429 VERIFICATION_ATTEMPTS_EXCEEDED with retryAfterSeconds, even for the right code', async () => {
      const acc = await t.createAccount();
      const { id, code } = await sendOk(acc, { to: nextPhone(), channel: 'local_sms' });
      for (let i = 0; i < 5; i++) {
        const res = await check(acc, id, wrong(code));
        expect(res.status).toBe(200);
        expect(res.body.data.valid).toBe(false);
      }
      const locked = await check(acc, id, code);
      expectError(locked, 429, 'VERIFICATION_ATTEMPTS_EXCEEDED');
      expect(locked.body.retryAfterSeconds).toBeGreaterThan(0);
      expect(locked.body.retryAfterSeconds).toBeLessThanOrEqual(600);
      expect(locked.headers['retry-after']).toBe(String(locked.body.retryAfterSeconds));
      expect((await rowsOf(acc.id))[0]).toMatchObject({ status: 'pending', attempts: 5 });
      // Locked for good: once expired it reports expired, never approved.
      shiftMs += 601_000;
      expect((await check(acc, id, code)).body.data).toEqual({ verificationId: id, status: 'expired', valid: false });
    });

    it('20 concurrent wrong checks: exactly 5 compared, 15 refused', async () => {
      const acc = await t.createAccount();
      const { id, code } = await sendOk(acc, { to: nextPhone(), channel: 'local_sms' });
      const results = await Promise.all(Array.from({ length: 20 }, () => check(acc, id, wrong(code))));
      expect(results.filter((r) => r.status === 200)).toHaveLength(5);
      expect(results.filter((r) => r.status === 429 && r.body.code === 'VERIFICATION_ATTEMPTS_EXCEEDED')).toHaveLength(15);
      expect((await rowsOf(acc.id))[0].attempts).toBe(5);
    });

    it('10 concurrent checks with the right code: exactly one is valid', async () => {
      const acc = await t.createAccount();
      const { id, code } = await sendOk(acc, { to: nextPhone(), channel: 'local_sms' });
      const results = await Promise.all(Array.from({ length: 10 }, () => check(acc, id, code)));
      const bodies = results.filter((r) => r.status === 200).map((r) => r.body.data);
      expect(bodies.filter((b) => b.valid)).toHaveLength(1);
      // The others saw it approved, or (past 5 attempts) were refused; none was valid.
      expect(results.every((r) => r.status === 200 || (r.status === 429 && r.body.code === 'VERIFICATION_ATTEMPTS_EXCEEDED'))).toBe(true);
      expect((await rowsOf(acc.id))[0].status).toBe('approved');
    });

    it('too many sends to one recipient: the 6th in the window is 429 until the window ends', async () => {
      const acc = await t.createAccount();
      const to = nextPhone();
      for (let i = 0; i < 5; i++) expect((await send(acc, { to, channel: 'local_sms' })).status).toBe(201);
      const limited = await send(acc, { to, channel: 'local_sms' });
      expectError(limited, 429, 'VERIFICATION_ATTEMPTS_EXCEEDED');
      expect(limited.body.retryAfterSeconds).toBeGreaterThan(590);
      expect(limited.body.retryAfterSeconds).toBeLessThanOrEqual(600);
      expect(await deliveries(acc.id, to)).toHaveLength(5);
      // Another recipient, and another account for the same recipient, are not affected.
      expect((await send(acc, { to: nextPhone(), channel: 'local_sms' })).status).toBe(201);
      expect((await send(await t.createAccount(), { to, channel: 'local_sms' })).status).toBe(201);
      // The limit applies to the recipient across channels and number formats.
      expectError(await send(acc, { to: to.replace('+966', '0'), channel: 'chatapp' }), 429, 'VERIFICATION_ATTEMPTS_EXCEEDED');
      shiftMs += 300_000;
      const later = await send(acc, { to, channel: 'local_sms' });
      expect(later.body.retryAfterSeconds).toBeLessThanOrEqual(300);
      shiftMs += 301_000;
      expect((await send(acc, { to, channel: 'local_sms' })).status).toBe(201);
    });

    it('12 concurrent sends to one recipient: exactly 5 delivered and billed', async () => {
      const acc = await t.createAccount();
      const to = nextPhone();
      const before = await wallet(acc);
      const results = await Promise.all(Array.from({ length: 12 }, () => send(acc, { to, channel: 'local_sms' })));
      expect(results.filter((r) => r.status === 201)).toHaveLength(5);
      expect(results.filter((r) => r.status === 429)).toHaveLength(7);
      expect(await deliveries(acc.id, to)).toHaveLength(5);
      expect(await wallet(acc)).toBe(before - 5 * t.config.billing.prices.local_sms);
    });
  });

  describe('validation', () => {
    const cases: [string, Record<string, unknown>, string, string][] = [
      ['codeLength 3', { codeLength: 3 }, 'VALIDATION_ERROR', 'codeLength'],
      ['codeLength 9', { codeLength: 9 }, 'VALIDATION_ERROR', 'codeLength'],
      ['codeLength not an integer', { codeLength: 6.5 }, 'VALIDATION_ERROR', 'codeLength'],
      ['expiresInMinutes 0', { expiresInMinutes: 0 }, 'VALIDATION_ERROR', 'expiresInMinutes'],
      ['expiresInMinutes 91', { expiresInMinutes: 91 }, 'VALIDATION_ERROR', 'expiresInMinutes'],
      ['a bad phone number', { to: '12ab' }, 'INVALID_RECIPIENT', 'to'],
      ['a missing to', { to: undefined }, 'VALIDATION_ERROR', 'to'],
      ['an unknown channel', { channel: 'pigeon' }, 'INVALID_CHANNEL', 'channel'],
      ['the web-session channel', { channel: 'chatapp_web' }, 'INVALID_CHANNEL', 'channel'],
      ['an unknown field', { bogus: 1 }, 'VALIDATION_ERROR', 'bogus'],
      ['a template without id', { template: {} }, 'VALIDATION_ERROR', 'template.id'],
    ];
    it.each(cases)('400 for %s, nothing sent or stored', async (_name, patch, code, field) => {
      const acc = await t.createAccount();
      const res = await send(acc, { to: PHONE, channel: 'local_sms', ...patch });
      expectError(res, 400, code);
      expect(res.body.error).toContain(field);
      expect(await rowsOf(acc.id)).toHaveLength(0);
      expect(await deliveries(acc.id, PHONE)).toHaveLength(0);
      expect(await wallet(acc)).toBe(100_000);
    });

    it('check: 400 for a code that is not 4-8 digits or a missing id', async () => {
      const acc = await t.createAccount();
      expectError(await check(acc, 'ver_x', '12a456'), 400, 'VALIDATION_ERROR');
      const num = await t.http().post('/api/v2/verification/check').set('X-API-Key', acc.key).send({ verificationId: 'ver_x', code: 123456 });
      expectError(num, 400, 'VALIDATION_ERROR');
      expectError(await t.http().post('/api/v2/verification/check').set('X-API-Key', acc.key).send({ code: '123456' }), 400, 'VALIDATION_ERROR');
    });
  });

  describe('billing and provider failures', () => {
    it('debits the price of the channel like a message', async () => {
      const acc = await t.createAccount({ walletBalance: 1000 });
      await sendOk(acc, { to: nextPhone(), channel: 'local_sms' });
      expect(await wallet(acc)).toBe(1000 - t.config.billing.prices.local_sms);
    });

    it('402 INSUFFICIENT_BALANCE when broke: nothing sent, no verification left, send slot given back', async () => {
      const acc = await t.createAccount({ walletBalance: 0 });
      const to = nextPhone();
      expectError(await send(acc, { to, channel: 'local_sms' }), 402, 'INSUFFICIENT_BALANCE');
      expect(await rowsOf(acc.id)).toHaveLength(0);
      expect(await deliveries(acc.id, to)).toHaveLength(0);
      for (let i = 0; i < 5; i++) expectError(await send(acc, { to, channel: 'local_sms' }), 402, 'INSUFFICIENT_BALANCE');
      await t.admin('patch', `/admin/v1/accounts/${acc.id}`).send({ walletBalance: 1000 }).expect(200);
      // The failed attempts did not use up the recipient's window.
      for (let i = 0; i < 5; i++) expect((await send(acc, { to, channel: 'local_sms' })).status).toBe(201);
    });

    it('403 SUBSCRIPTION_INACTIVE propagates', async () => {
      const acc = await t.createAccount({ subscriptionActive: false });
      expectError(await send(acc, { to: nextPhone(), channel: 'local_sms' }), 403, 'SUBSCRIPTION_INACTIVE');
      expect(await rowsOf(acc.id)).toHaveLength(0);
    });

    it('503 PROVIDER_UNAVAILABLE propagates, refunds, leaves no verification', async () => {
      const acc = await t.createAccount({ walletBalance: 1000 });
      await t.admin('post', '/admin/v1/sandbox/faults').send({ channel: 'local_sms', accountId: acc.id, kind: 'unavailable', count: 1 }).expect(201);
      try {
        expectError(await send(acc, { to: nextPhone(), channel: 'local_sms' }), 503, 'PROVIDER_UNAVAILABLE');
      } finally {
        await t.admin('delete', '/admin/v1/sandbox/faults');
      }
      expect(await rowsOf(acc.id)).toHaveLength(0);
      expect(await wallet(acc)).toBe(1000);
    });

    it('a provider rejection is 400 INVALID_RECIPIENT with no verification left', async () => {
      const acc = await t.createAccount();
      const res = await send(acc, { to: '+966500000000', channel: 'local_sms' });
      expectError(res, 400, 'INVALID_RECIPIENT');
      expect(res.body.error).toContain('to');
      expect(await rowsOf(acc.id)).toHaveLength(0);
      expect(await wallet(acc)).toBe(100_000); // the pipeline refunds rejected messages
    });
  });

  describe('OpenAPI', () => {
    it('documents both routes with their request bodies', async () => {
      const res = await t.http().get('/docs-json');
      expect(res.status).toBe(200);
      expect(res.body.paths['/api/v2/verification/send'].post).toBeDefined();
      expect(res.body.paths['/api/v2/verification/check'].post).toBeDefined();
      const send = res.body.components.schemas.SendVerificationDto;
      expect(send.required).toEqual(expect.arrayContaining(['to', 'channel']));
      expect(send.properties.codeLength).toMatchObject({ minimum: 4, maximum: 8, default: 6 });
      expect(send.properties.expiresInMinutes).toMatchObject({ minimum: 1, maximum: 90, default: 10 });
      expect(res.body.components.schemas.CheckVerificationDto.required).toEqual(expect.arrayContaining(['verificationId', 'code']));
    });
  });

  describe('permissions', () => {
    it('send needs messages:create and a verified phone; check needs messages:create only', async () => {
      const acc = await t.createAccount();
      const reader = await t.memberKey(acc.id, ['messages:read']);
      const creator = await t.memberKey(acc.id, ['messages:create']);
      expectError(await send(reader, { to: nextPhone(), channel: 'local_sms' }), 403, 'FORBIDDEN');
      const { id, code } = await sendOk(acc, { to: nextPhone(), channel: 'local_sms' });
      expectError(await check(reader, id, code), 403, 'FORBIDDEN');

      await t.admin('patch', `/admin/v1/accounts/${acc.id}`).send({ phoneVerified: false }).expect(200);
      expectError(await send(creator, { to: nextPhone(), channel: 'local_sms' }), 403, 'FORBIDDEN');
      expect((await check(creator, id, code)).body.data).toEqual({ verificationId: id, status: 'approved', valid: true });
      expectError(await t.http().post('/api/v2/verification/check').send({ verificationId: id, code }), 401, 'UNAUTHORIZED');
    });
  });

  describe('purge (runs last: it moves the clock a day on)', () => {
    it('deletes codes expired longer than VERIFICATION_RETENTION_HOURS and idle send windows; the recipient can be sent to again', async () => {
      const acc = await t.createAccount();
      const to = nextPhone();
      const old = await sendOk(acc, { to, channel: 'local_sms', expiresInMinutes: 10 });
      const count = async (table: string) => Number((await db.query(`SELECT COUNT(*) AS n FROM ${table} WHERE account_id = ?`, [acc.id]))[0].n);
      expect([await count('verifications'), await count('verification_send_windows')]).toEqual([1, 1]);
      const purger = t.app.get(VerificationPurger);
      // Expired, but not yet for 24 h (default retention): kept.
      shiftMs += 23 * 3_600_000;
      await purger.purge();
      expect([await count('verifications'), await count('verification_send_windows')]).toEqual([1, 1]);
      shiftMs += 2 * 3_600_000;
      const fresh = await sendOk(acc, { to: nextPhone(), channel: 'local_sms' });
      const purged = await purger.purge();
      expect(purged.codes).toBeGreaterThanOrEqual(1);
      expect(purged.windows).toBeGreaterThanOrEqual(1);
      const left: { id: string }[] = await db.query('SELECT id FROM verifications WHERE account_id = ?', [acc.id]);
      expect(left.map((r) => r.id)).toEqual([fresh.id]);
      expect(await count('verification_send_windows')).toBe(1);
      // A purged code is simply unknown now.
      expect((await check(acc, old.id, old.code)).status).toBe(404);
      // The purged window of `to` is opened again by the next send.
      const again = await sendOk(acc, { to, channel: 'local_sms' });
      expect((await check(acc, again.id, again.code)).body.data).toMatchObject({ status: 'approved', valid: true });
      expect(await count('verification_send_windows')).toBe(2);
    });
  });
});
