import { DataSource } from 'typeorm';
import { TestAccount, TestApp } from '../support/app';
import { expectError } from '../support/envelope';
import { createVerificationApp, verificationHelpers } from '../support/verification-helpers';

const DAY = 86_400_000;
const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

// GET /api/v2/verification/stats: the daily counts the fraud module keeps from the verification
// feature's VERIFICATION_EVENTS notices, through real sends and checks.
describe('Verification stats (e2e)', () => {
  let t: TestApp;
  // The app's Clock reads Date.now() + shiftMs; `at()` moves it to a set time of a UTC day relative to
  // today's, so the suite never straddles a real midnight.
  const todayStart = Date.parse(dayOf(Date.now()));
  let shiftMs = 0;
  const at = (dayOffset: number, hh: number, mm = 0) => {
    shiftMs = todayStart + dayOffset * DAY + (hh * 60 + mm) * 60_000 - Date.now();
  };
  const { nextPhone, check, sendOk } = verificationHelpers(() => t);
  const stats = (key: string, days?: string) =>
    t
      .http()
      .get('/api/v2/verification/stats')
      .query(days === undefined ? {} : { days })
      .set('X-API-Key', key);
  const sms = () => ({ to: nextPhone(), channel: 'local_sms' });
  const today = (offset = 0) => dayOf(todayStart + offset * DAY);

  let acc: TestAccount;

  beforeAll(async () => {
    t = await createVerificationApp(() => shiftMs);
    acc = await t.createAccount();
    at(-2, 12);
    const a = await sendOk(acc, sms());
    await sendOk(acc, sms());
    expect((await check(acc, a.id, a.code)).body.data.valid).toBe(true);
    // Sent just before midnight, verified just after: counted on the day it was sent.
    at(-1, 23, 55);
    const late = await sendOk(acc, sms());
    at(0, 0, 2);
    expect((await check(acc, late.id, late.code)).body.data.valid).toBe(true);
    // A second check of an approved code changes nothing.
    expect((await check(acc, late.id, late.code)).body.data.valid).toBe(false);
    at(0, 12);
    await sendOk(acc, sms());
  });
  afterAll(async () => {
    await t.close();
  });

  it('one zero-filled entry per UTC day, oldest first, today last; verified on the day the code was sent', async () => {
    const res = await stats(acc.key, '5');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        days: [
          { date: today(-4), sent: 0, verified: 0 },
          { date: today(-3), sent: 0, verified: 0 },
          { date: today(-2), sent: 2, verified: 1 },
          { date: today(-1), sent: 1, verified: 1 },
          { date: today(0), sent: 1, verified: 0 },
        ],
      },
    });
  });

  it('14 days by default, up to 90; a day moves the window', async () => {
    const res = await stats(acc.key);
    expect(res.status).toBe(200);
    expect(res.body.data.days).toHaveLength(14);
    expect(res.body.data.days[0].date).toBe(today(-13));
    expect(res.body.data.days[13]).toEqual({ date: today(0), sent: 1, verified: 0 });
    expect((await stats(acc.key, '90')).body.data.days).toHaveLength(90);
    expect((await stats(acc.key, '1')).body.data.days).toEqual([{ date: today(0), sent: 1, verified: 0 }]);

    at(1, 9);
    try {
      expect((await stats(acc.key, '2')).body.data.days).toEqual([
        { date: today(0), sent: 1, verified: 0 },
        { date: today(1), sent: 0, verified: 0 },
      ]);
    } finally {
      at(0, 12);
    }
  });

  it("an account sees only its own codes; another account's sends leave it unchanged", async () => {
    const other = await t.createAccount();
    expect((await stats(other.key, '3')).body.data.days).toEqual([
      { date: today(-2), sent: 0, verified: 0 },
      { date: today(-1), sent: 0, verified: 0 },
      { date: today(0), sent: 0, verified: 0 },
    ]);
    const v = await sendOk(other, sms());
    await check(other, v.id, v.code);
    expect((await stats(other.key, '1')).body.data.days).toEqual([{ date: today(0), sent: 1, verified: 1 }]);
    expect((await stats(acc.key, '1')).body.data.days).toEqual([{ date: today(0), sent: 1, verified: 0 }]);
  });

  it('days must be an integer from 1 to 90', async () => {
    for (const days of ['0', '91', 'abc', '1.5', '-1']) {
      expectError(await stats(acc.key, days), 400, 'VALIDATION_ERROR', /days must be an integer from 1 to 90/);
    }
  });

  it('needs messages:read (an owner key has it); no key is 401', async () => {
    const reader = await t.memberKey(acc.id, ['messages:read']);
    const creator = await t.memberKey(acc.id, ['messages:create']);
    expect((await stats(reader, '1')).status).toBe(200);
    expectError(await stats(creator, '1'), 403, 'FORBIDDEN');
    expectError(await t.http().get('/api/v2/verification/stats'), 401, 'UNAUTHORIZED');
  });

  it('a count that cannot be written never fails the send or the check (the code was delivered and paid for)', async () => {
    const db = t.app.get(DataSource);
    const other = await t.createAccount();
    await db.query('ALTER TABLE verification_daily_counts RENAME TO verification_daily_counts_away');
    try {
      const v = await sendOk(other, sms());
      expect((await check(other, v.id, v.code)).body.data).toEqual({
        verificationId: v.id,
        status: 'approved',
        valid: true,
        livemode: true,
      });
    } finally {
      await db.query('ALTER TABLE verification_daily_counts_away RENAME TO verification_daily_counts');
    }
    expect((await stats(other.key, '1')).body.data.days).toEqual([{ date: today(0), sent: 0, verified: 0 }]);
  });
});
