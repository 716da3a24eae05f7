import { createTestApp, TestAccount, TestApp } from '../support/app';
import { expectError } from '../support/envelope';
import { FOOTER_AR, FOOTER_EN, marketingHelpers } from './marketing-helpers';

// Issue 28 item 5: marketing SMS only from promotional senders, the opt-out footer appended once and
// paid, links only to the account's hosts; on single sends, batches and the bulk dry run alike.
// The clock stays real: these sends do not depend on the hour (the window is opened to the whole day).

const TO = '+966501234567';
const PRICE = 5;

describe('Promotional senders, opt-out footer and link hosts (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;
  const h = marketingHelpers(
    () => t,
    () => acc,
  );
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(async () => {
    acc = await t.createAccount({ walletBalance: 100_000 });
    // Any hour: sending hours have their own suite.
    expect((await h.compliance({ marketingWindow: { start: '00:00', end: '23:59' } })).status).toBe(200);
  });

  it('a promotional sender sends marketing with the footer appended once, its parts counted and paid with it', async () => {
    await h.sender('Promo-AD', 'promotional');
    const text = 'A'.repeat(150); // 150 GSM characters: one part alone, two with the footer
    const res = await h.send(h.sms(TO, text, { sender: 'Promo-AD' }));
    expect(res.status).toBe(201);
    expect(res.body.data.messages[0]).toMatchObject({ status: 'sent', segments: 2, encoding: 'gsm7', cost: 2 * PRICE });
    expect(await h.wallet()).toBe(100_000 - 2 * PRICE);
    const got = await h.delivered(TO);
    expect(got.map((m) => m.text)).toEqual([`${text}\n${FOOTER_EN}`]);

    // Text that already says how to opt out is sent as it is; Arabic text gets the Arabic footer.
    const own = await h.send(h.sms(TO, 'Sale today. Text STOP to 1234', { sender: 'Promo-AD' }));
    expect(own.body.data.messages[0]).toMatchObject({ segments: 1, cost: PRICE });
    const ar = await h.send(h.sms(TO, 'تخفيضات اليوم', { sender: 'Promo-AD', purpose: 'marketing' }));
    expect(ar.body.data.messages[0]).toMatchObject({ encoding: 'ucs2', segments: 1 });
    const texts = (await h.delivered(TO)).map((m) => m.text);
    expect(texts).toContain('Sale today. Text STOP to 1234');
    expect(texts).toContain(`تخفيضات اليوم\n${FOOTER_AR}`);
    expect(await h.wallet()).toBe(100_000 - 4 * PRICE);
  });

  it('refuses marketing from a transactional sender and anything but marketing from a promotional one, unpaid', async () => {
    await h.sender('Plain', 'transactional');
    await h.sender('Promo-AD', 'promotional');
    expectError(
      await h.send(h.sms(TO, 'Sale', { sender: 'Plain', purpose: 'marketing' })),
      400,
      'SENDER_NOT_ALLOWED',
      'sender "Plain" is not a promotional sender: marketing SMS go out only from a promotional (-AD) sender',
    );
    // No sender named: the default one (the first approved, Plain) is not promotional either.
    expectError(await h.send(h.sms(TO, 'Sale', { purpose: 'marketing' })), 400, 'SENDER_NOT_ALLOWED');
    expectError(
      await h.send(h.sms(TO, 'Your code', { sender: 'Promo-AD', purpose: 'transactional' })),
      400,
      'SENDER_NOT_ALLOWED',
      'sender "Promo-AD" is promotional: it sends marketing messages only',
    );
    expectError(await h.send(h.sms(TO, 'x', { purpose: 'promo' })), 400, 'VALIDATION_ERROR', /^purpose must be one of/);
    expect(await h.messageCount()).toBe(0);
    expect(await h.wallet()).toBe(100_000);
    // A transactional message from a transactional sender has no footer.
    const ok = await h.send(h.sms(TO, 'Your order shipped', { sender: 'Plain' }));
    expect(ok.status).toBe(201);
    expect((await h.delivered(TO)).map((m) => m.text)).toEqual(['Your order shipped']);
  });

  it('refuses links to hosts the account has not registered; a registered host and its subdomains pass', async () => {
    await h.sender('Promo-AD', 'promotional');
    const short = await h.send(h.sms(TO, 'Sale: bit.ly/x1', { sender: 'Promo-AD' }));
    expectError(
      short,
      400,
      'LINK_DOMAIN_NOT_ALLOWED',
      "content links to bit.ly, which is not among this account's allowedLinkDomains (GET /api/v2/account/compliance)",
    );
    expect((await h.compliance({ allowedLinkDomains: ['example.com'] })).status).toBe(200);
    const ok = await h.send(h.sms(TO, 'Sale: https://shop.example.com/x', { sender: 'Promo-AD' }));
    expect(ok.status).toBe(201);
    expectError(
      await h.send(h.sms(TO, 'Sale: https://example.com.evil.io/x', { sender: 'Promo-AD' })),
      400,
      'LINK_DOMAIN_NOT_ALLOWED',
    );
    // Transactional messages are not restricted.
    await h.sender('Plain', 'transactional');
    expect((await h.send(h.sms(TO, 'Track: bit.ly/x1', { sender: 'Plain' }))).status).toBe(201);
    expect(await h.messageCount()).toBe(2);
  });

  it('a batch and the bulk dry run apply the same rules; a job with such rows is rejected naming them', async () => {
    await h.sender('Promo-AD', 'promotional');
    await h.sender('Plain', 'transactional');
    const batch = await h.send(h.sms(TO, 'Deals', { to: [TO, '+966501234568'], sender: 'Promo-AD' }));
    expect(batch.status).toBe(201);
    expect(batch.body.data.messages.map((m: { segments: number }) => m.segments)).toEqual([1, 1]);
    expect((await h.delivered('+966501234568')).map((m) => m.text)).toEqual([`Deals\n${FOOTER_EN}`]);

    const messages = [
      h.sms(TO, 'Deals', { sender: 'Promo-AD' }),
      h.sms(TO, 'Deals', { sender: 'Plain', purpose: 'marketing' }),
      h.sms(TO, 'Deals at evil.io/x', { sender: 'Promo-AD' }),
      h.sms(TO, 'Receipt', { sender: 'Promo-AD', purpose: 'transactional' }),
    ];
    const dry = await t
      .http()
      .post('/api/v2/messages/bulk/validate')
      .set('X-API-Key', acc.key)
      .send({ messagesPerSecond: 5, messages });
    expect(dry.status).toBe(200);
    expect(dry.body.data).toMatchObject({ total: 4, valid: 1, invalid: 3 });
    expect(dry.body.data.errors.map((e: { index: number; code: string }) => [e.index, e.code])).toEqual([
      [1, 'SENDER_NOT_ALLOWED'],
      [2, 'LINK_DOMAIN_NOT_ALLOWED'],
      [3, 'SENDER_NOT_ALLOWED'],
    ]);
  });
});
