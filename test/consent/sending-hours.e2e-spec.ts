import { Clock } from '../../src/common/clock';
import { ScheduledSender } from '../../src/messaging/scheduled/scheduled-sender';
import { createTestApp, TestAccount, TestApp } from '../support/app';
import { FOOTER_EN, marketingHelpers } from './marketing-helpers';

// Issue 28 item 6: marketing outside the window (recipient's local time) is accepted as scheduled for
// the window's next opening and sent then. The app's Clock reads a set instant plus the real time
// passed since, so the test moves time instead of sleeping (the scheduled loop is driven by hand).

const RIYADH = '+966501234567';
const NEW_YORK = '+12025550123';
// 2030-01-15 20:00Z = 23:00 in Riyadh (UTC+3); the window opens there at 06:00Z the next day.
const AT_23_RIYADH = Date.parse('2030-01-15T20:00:00.000Z');
const OPENS = '2030-01-16T06:00:00.000Z';

describe('Sending hours by recipient time zone (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;
  let base = AT_23_RIYADH;
  let since = Date.now();
  const setTime = (at: number) => {
    base = at;
    since = Date.now();
  };
  const h = marketingHelpers(
    () => t,
    () => acc,
  );
  beforeAll(async () => {
    // The scheduled loop is driven by the test (runOnce), not by its timer.
    t = await createTestApp({ env: { SCHEDULED_SEND_TICK_MS: '600000', DEFAULT_ALLOWED_COUNTRIES: 'SA,US' } });
    t.app.get(Clock).now = () => base + (Date.now() - since);
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(async () => {
    setTime(AT_23_RIYADH);
    acc = await t.createAccount({ walletBalance: 100_000 });
    await h.sender('Promo-AD', 'promotional');
    await h.sender('Plain', 'transactional');
  });

  it('a marketing send at 23:00 recipient time is scheduled for 09:00 (paid now) and sent then', async () => {
    const res = await h.send(h.sms(RIYADH, 'Weekend sale', { sender: 'Promo-AD' }));
    expect(res.status).toBe(201);
    const m = res.body.data.messages[0];
    expect(m).toMatchObject({ status: 'scheduled', scheduledAt: OPENS, scheduledReason: 'quiet_hours', cost: 5 });
    expect(await h.wallet()).toBe(100_000 - 5);
    // Transactional messages go at any hour.
    const tx = await h.send(h.sms(RIYADH, 'Your code is ready', { sender: 'Plain' }));
    expect(tx.body.data.messages[0]).toMatchObject({ status: 'sent' });
    expect(tx.body.data.messages[0].scheduledReason).toBeUndefined();

    const sender = t.app.get(ScheduledSender);
    setTime(Date.parse(OPENS) - 60_000); // 08:59 in Riyadh: still closed
    await sender.runOnce();
    expect((await h.delivered(RIYADH)).map((d) => d.text)).toEqual(['Your code is ready']);
    setTime(Date.parse(OPENS));
    expect(await sender.runOnce()).toBe(1);
    expect((await h.delivered(RIYADH)).map((d) => d.text)).toEqual([
      'Your code is ready',
      `Weekend sale\n${FOOTER_EN}`,
    ]);
    const got = await t.http().get(`/api/v2/messages/${m.id}`).set('X-API-Key', acc.key);
    expect(got.body.data).toMatchObject({ status: 'sent', scheduledAt: OPENS });
    expect(await h.wallet()).toBe(100_000 - 10); // the held one paid once
  });

  it("judges each recipient in its own zone, the account's zone for a country of several; inside the window sends at once", async () => {
    setTime(Date.parse('2030-01-15T12:00:00.000Z')); // 15:00 Riyadh; 07:00 New York; 02:00 Adak
    const ok = await h.send(h.sms(RIYADH, 'Sale STOP=end', { sender: 'Promo-AD' }));
    expect(ok.body.data.messages[0]).toMatchObject({ status: 'sent' });
    // US has several zones: the first listed (America/Adak, UTC-10) unless the account chose one.
    const adak = await h.send(h.sms(NEW_YORK, 'Sale STOP=end', { sender: 'Promo-AD' }));
    expect(adak.body.data.messages[0]).toMatchObject({ status: 'scheduled', scheduledAt: '2030-01-15T19:00:00.000Z' });
    expect((await h.compliance({ defaultTimeZones: { US: 'America/New_York' } })).status).toBe(200);
    const ny = await h.send(h.sms(NEW_YORK, 'Sale STOP=end', { sender: 'Promo-AD' }));
    expect(ny.body.data.messages[0]).toMatchObject({ status: 'scheduled', scheduledAt: '2030-01-15T14:00:00.000Z' });
    // A batch: each recipient on its own.
    const batch = await h.send(h.sms(RIYADH, 'Sale STOP=end', { to: [RIYADH, NEW_YORK], sender: 'Promo-AD' }));
    expect(batch.body.data.messages.map((x: { status: string }) => x.status)).toEqual(['sent', 'scheduled']);
  });

  it('a scheduleAt outside the window moves to its next opening; the days are honoured', async () => {
    expect((await h.compliance({ marketingWindow: { days: ['sun', 'mon', 'tue', 'wed', 'thu'] } })).status).toBe(200);
    // 2030-01-17 is a Thursday: 23:00 then -> Sunday 2030-01-20 09:00 Riyadh (Friday and Saturday closed).
    const res = await h.send(
      h.sms(RIYADH, 'Sale STOP=end', { sender: 'Promo-AD', scheduleAt: '2030-01-17T20:00:00.000Z' }),
    );
    expect(res.body.data.messages[0]).toMatchObject({
      status: 'scheduled',
      scheduledAt: '2030-01-20T06:00:00.000Z',
      scheduledReason: 'quiet_hours',
    });
    const inside = await h.send(
      h.sms(RIYADH, 'Sale STOP=end', { sender: 'Promo-AD', scheduleAt: '2030-01-16T10:00:00.000Z' }),
    );
    expect(inside.body.data.messages[0]).toMatchObject({
      status: 'scheduled',
      scheduledAt: '2030-01-16T10:00:00.000Z',
    });
    expect(inside.body.data.messages[0].scheduledReason).toBeUndefined();
  });
});
