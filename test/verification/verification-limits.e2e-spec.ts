import { TestApp } from '../support/app';
import { expectError } from '../support/envelope';
import { createVerificationApp, verificationHelpers } from '../support/verification-helpers';

describe('Verification codes (e2e): limits', () => {
  let t: TestApp;
  /** The app's one Clock, moved forward by the tests (expiry, send windows) instead of sleeping. */
  let shiftMs = 0;
  const { nextPhone, send, check, deliveries, sendOk, wrong, rowsOf, wallet } = verificationHelpers(() => t);

  beforeAll(async () => {
    t = await createVerificationApp(() => shiftMs);
  });
  afterAll(async () => {
    await t.close();
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
      expect((await check(acc, id, code)).body.data).toEqual({
        verificationId: id,
        status: 'expired',
        valid: false,
        livemode: true,
      });
    });

    it('20 concurrent wrong checks: exactly 5 compared, 15 refused', async () => {
      const acc = await t.createAccount();
      const { id, code } = await sendOk(acc, { to: nextPhone(), channel: 'local_sms' });
      const results = await Promise.all(Array.from({ length: 20 }, () => check(acc, id, wrong(code))));
      expect(results.filter((r) => r.status === 200)).toHaveLength(5);
      expect(results.filter((r) => r.status === 429 && r.body.code === 'VERIFICATION_ATTEMPTS_EXCEEDED')).toHaveLength(
        15,
      );
      expect((await rowsOf(acc.id))[0].attempts).toBe(5);
    });

    it('10 concurrent checks with the right code: exactly one is valid', async () => {
      const acc = await t.createAccount();
      const { id, code } = await sendOk(acc, { to: nextPhone(), channel: 'local_sms' });
      const results = await Promise.all(Array.from({ length: 10 }, () => check(acc, id, code)));
      const bodies = results.filter((r) => r.status === 200).map((r) => r.body.data);
      expect(bodies.filter((b) => b.valid)).toHaveLength(1);
      // The others saw it approved, or (past 5 attempts) were refused; none was valid.
      expect(
        results.every(
          (r) => r.status === 200 || (r.status === 429 && r.body.code === 'VERIFICATION_ATTEMPTS_EXCEEDED'),
        ),
      ).toBe(true);
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
      expectError(
        await send(acc, { to: to.replace('+966', '0'), channel: 'chatapp' }),
        429,
        'VERIFICATION_ATTEMPTS_EXCEEDED',
      );
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
});
