import { DataSource } from 'typeorm';
import { VerificationPurger } from '../../src/verification/verification-purger';
import { TestAccount, TestApp } from '../support/app';
import { expectError } from '../support/envelope';
import { createVerificationApp, PHONE, verificationHelpers } from '../support/verification-helpers';

// Attempt and send limits: verification-limits.e2e-spec.ts; validation, billing, OpenAPI and
// permissions: verification-validation.e2e-spec.ts.
describe('Verification codes (e2e)', () => {
  let t: TestApp;
  let db: DataSource;
  /** The app's one Clock, moved forward by the tests (expiry, send windows) instead of sleeping. */
  let shiftMs = 0;
  const { nextPhone, send, check, deliveries, lastCode, sendOk, wrong, rowsOf, wallet } = verificationHelpers(() => t);

  beforeAll(async () => {
    t = await createVerificationApp(() => shiftMs);
    db = t.app.get(DataSource);
  });
  afterAll(async () => {
    await t.close();
  });

  describe('send and check', () => {
    it('sends a 6-digit code by SMS (normalised number) and approves it once', async () => {
      const acc = await t.createAccount();
      const before = Date.now() + shiftMs;
      const res = await send(acc, { to: '0501234567', channel: 'local_sms' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        success: true,
        data: {
          verificationId: expect.stringMatching(/^ver_/),
          to: PHONE,
          channel: 'local_sms',
          status: 'pending',
          expiresAt: expect.any(String),
          livemode: true,
        },
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
      expect(ok.body).toEqual({
        success: true,
        data: { verificationId: res.body.data.verificationId, status: 'approved', valid: true, livemode: true },
      });

      // Single use: the same code never validates again.
      const again = await check(acc, res.body.data.verificationId, code);
      expect(again.status).toBe(200);
      expect(again.body.data).toEqual({
        verificationId: res.body.data.verificationId,
        status: 'approved',
        valid: false,
        livemode: true,
      });
      expect((await rowsOf(acc.id))[0].status).toBe('approved');
    });

    it('a wrong code leaves it pending (valid:false); the right one then approves', async () => {
      const acc = await t.createAccount();
      const { id, code } = await sendOk(acc, { to: nextPhone(), channel: 'local_sms' });
      const bad = await check(acc, id, wrong(code));
      expect(bad.status).toBe(200);
      expect(bad.body.data).toEqual({ verificationId: id, status: 'pending', valid: false, livemode: true });
      const good = await check(acc, id, code);
      expect(good.body.data).toEqual({ verificationId: id, status: 'approved', valid: true, livemode: true });
    });

    it('honours codeLength 4 and 8 and expiresInMinutes in the text', async () => {
      const acc = await t.createAccount();
      const to = nextPhone();
      const four = await sendOk(acc, { to, channel: 'local_sms', codeLength: 4, expiresInMinutes: 1 });
      expect(four.code).toMatch(/^\d{4}$/);
      expect((await deliveries(acc.id, to))[0].text).toBe(
        `Your verification code is ${four.code}. It expires in 1 minute.`,
      );
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
      expect((await check(acc, res.body.data.verificationId, code)).body.data).toMatchObject({
        status: 'approved',
        valid: true,
      });
    });

    it('expires: after expiresInMinutes the right code is not valid (status expired)', async () => {
      const acc = await t.createAccount();
      const { id, code } = await sendOk(acc, { to: nextPhone(), channel: 'local_sms', expiresInMinutes: 1 });
      shiftMs += 59_000;
      expect((await check(acc, id, wrong(code))).body.data).toEqual({
        verificationId: id,
        status: 'pending',
        valid: false,
        livemode: true,
      });
      shiftMs += 2_000;
      const res = await check(acc, id, code);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ verificationId: id, status: 'expired', valid: false, livemode: true });
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
      const res = await t
        .http()
        .post('/api/v2/templates')
        .set('X-API-Key', acc.key)
        .send({ name, category: 'sms', subType: 'otp', content });
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
      expect((await check(acc, res.body.data.verificationId, (m as RegExpExecArray)[1])).body.data).toMatchObject({
        status: 'approved',
        valid: true,
      });
      expect(await wallet(acc)).toBe(100_000 - t.config.billing.prices.local_sms);
    });

    it('400 from the messaging validator for a template with two variables or an unknown one; nothing left', async () => {
      const acc = await t.createAccount();
      const id = await smsTemplate(acc, 'two_vars', 'Hi {{1}}, your code is {{2}}');
      const to = nextPhone();
      expectError(await send(acc, { to, channel: 'local_sms', template: { id } }), 400, 'TEMPLATE_VARIABLES_MISMATCH');
      expectError(
        await send(acc, { to, channel: 'local_sms', template: { id: 'tpl_nope' } }),
        400,
        'TEMPLATE_NOT_FOUND',
      );
      expect(await rowsOf(acc.id)).toHaveLength(0);
      expect(await deliveries(acc.id, to)).toHaveLength(0);
    });
  });

  describe('purge (runs last: it moves the clock a day on)', () => {
    it('deletes codes expired longer than VERIFICATION_RETENTION_HOURS and idle send windows; the recipient can be sent to again', async () => {
      const acc = await t.createAccount();
      const to = nextPhone();
      const old = await sendOk(acc, { to, channel: 'local_sms', expiresInMinutes: 10 });
      const count = async (table: string) =>
        Number((await db.query(`SELECT COUNT(*) AS n FROM ${table} WHERE account_id = ?`, [acc.id]))[0].n);
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
