import { Clock } from '../../src/common/clock';
import { ScheduledSender } from '../../src/messaging/scheduled/scheduled-sender';
import { BULK_TEST_ENV_PATIENT, ds, phone, post, waitStatus } from '../support/bulk-helpers';
import { createTestApp, TestAccount, TestApp } from '../support/app';
import { FOOTER_EN, marketingHelpers } from './marketing-helpers';

// Issue 28 item 1: what is marketing (the request, the template's subType, a promotional sender) is
// stored on the message and shown by the message resource, the bulk rows and the dry run; a code is
// never marketing; a scheduled message is judged again by the send policy when it is due.

// 2030-01-15 12:00Z = 15:00 in Riyadh: inside the default sending hours.
const NOON = Date.parse('2030-01-15T12:00:00.000Z');

describe('Message purpose (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;
  let base = NOON;
  let since = Date.now();
  const setTime = (at: number) => {
    base = at;
    since = Date.now();
  };
  const h = marketingHelpers(
    () => t,
    () => acc,
  );
  const get = (path: string) => t.http().get(path).set('X-API-Key', acc.key);
  const stored = async (id: string) =>
    (await ds(t).query('SELECT purpose, status, cost, error_code FROM messages WHERE id = ?', [id]))[0] as {
      purpose: string;
      status: string;
      cost: number | string;
      error_code: string | null;
    };
  const template = async (body: Record<string, unknown>) => {
    const res = await t.http().post('/api/v2/templates').set('X-API-Key', acc.key).send(body);
    if (res.status !== 201) throw new Error(`template ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data.template.id as string;
  };

  beforeAll(async () => {
    t = await createTestApp({
      env: { ...BULK_TEST_ENV_PATIENT, SCHEDULED_SEND_TICK_MS: '600000', DEFAULT_ALLOWED_COUNTRIES: 'SA,US' },
    });
    t.app.get(Clock).now = () => base + (Date.now() - since);
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(async () => {
    setTime(NOON);
    acc = await t.createAccount({ walletBalance: 100_000 });
  });

  it('the send answer, the message resource and the log say transactional or marketing', async () => {
    await h.sender('Promo-AD', 'promotional');
    const tx = await h.send(h.sms(phone(), 'Your order shipped'));
    expect(tx.status).toBe(201);
    expect(tx.body.data.messages[0]).toMatchObject({ status: 'sent', purpose: 'transactional' });
    // Marketing by the sender alone (no purpose in the request).
    const mk = await h.send(h.sms(phone(), 'Weekend sale', { sender: 'Promo-AD' }));
    expect(mk.status).toBe(201);
    expect(mk.body.data.messages[0]).toMatchObject({ status: 'sent', purpose: 'marketing' });
    for (const [res, purpose] of [
      [tx, 'transactional'],
      [mk, 'marketing'],
    ] as const) {
      const id = res.body.data.messages[0].id as string;
      const one = await get(`/api/v2/messages/${id}`);
      expect(one.status).toBe(200);
      expect(one.body.data.purpose).toBe(purpose);
      expect((await stored(id)).purpose).toBe(purpose);
    }
    const bad = await h.send(h.sms(phone(), 'x', { purpose: 'newsletter' }));
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect(bad.body.error).toContain('purpose must be one of');
  });

  it('a template whose subType is marketing makes its messages marketing; it cannot be said transactional', async () => {
    const id = await template({
      name: 'spring_sale',
      category: 'email',
      subType: 'marketing',
      emailSubject: 'Spring sale',
      content: 'Hello {{1}}, 20% off this week',
    });
    const body = {
      to: 'buyer@example.com',
      channel: 'email',
      messageType: 'template',
      template: { id, variablesIndexed: ['Sara'] },
    };
    const ok = await h.send(body);
    expect(ok.status).toBe(201);
    expect(ok.body.data.messages[0]).toMatchObject({ purpose: 'marketing', status: 'sent' });
    expect((await stored(ok.body.data.messages[0].id)).purpose).toBe('marketing');

    const before = await h.messageCount();
    const refused = await h.send({ ...body, purpose: 'transactional' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect(refused.body.error).toContain('marketing template');
    expect(await h.messageCount()).toBe(before);

    // A marketing-scope opt-out stops the template's messages (they are marketing).
    const sup = await t
      .http()
      .post('/api/v2/suppressions')
      .set('X-API-Key', acc.key)
      .send({ entries: [{ recipient: 'buyer@example.com', channel: 'email' }] });
    expect(sup.status).toBe(200);
    const opted = await h.send(body);
    expect(opted.status).toBe(400);
    expect(opted.body.code).toBe('RECIPIENT_OPTED_OUT');
  });

  it('a verification code is transactional: with a promotional default sender it goes from the platform sender, without the footer', async () => {
    await h.sender('Promo-AD', 'promotional');
    const senders = await get('/api/v2/sms-senders');
    const promo = senders.body.data.smsSenders.find((s: { name: string }) => s.name === 'Promo-AD');
    expect((await t.http().post(`/api/v2/sms-senders/${promo.id}/default`).set('X-API-Key', acc.key)).status).toBe(200);
    // A plain send without a sender now goes from the default: marketing.
    const plain = await h.send(h.sms(phone(), 'News'));
    expect(plain.body.data.messages[0].purpose).toBe('marketing');

    const to = phone();
    const res = await t
      .http()
      .post('/api/v2/verification/send')
      .set('X-API-Key', acc.key)
      .send({ to, channel: 'local_sms' });
    expect(res.status).toBe(201);
    const [msg] = await ds(t).query('SELECT sender, purpose FROM messages WHERE account_id = ? AND recipient = ?', [
      acc.id,
      to,
    ]);
    expect(msg).toEqual({ sender: 'MsgService', purpose: 'transactional' });
    const [delivered] = await h.delivered(to);
    expect(delivered.text).toMatch(/^Your verification code is \d{6}\. It expires in 10 minutes\.$/);
    expect(delivered.text).not.toContain(FOOTER_EN);
  });

  it('bulk rows and the dry run show the purpose; the dry run counts suppressed rows and leaves them out of the cost', async () => {
    await h.sender('Promo-AD', 'promotional');
    const [a, b, c, d] = [phone(), phone(), phone(), phone()];
    const sup = await t
      .http()
      .post('/api/v2/suppressions')
      .set('X-API-Key', acc.key)
      .send({ entries: [{ recipient: c, channel: 'local_sms' }] });
    expect(sup.status).toBe(200);
    const messages = [
      h.sms(a, 'receipt'),
      h.sms(b, 'sale', { sender: 'Promo-AD' }),
      h.sms(c, 'sale', { sender: 'Promo-AD' }),
      h.sms(d, 'sale', { purpose: 'marketing', sender: 'Promo-AD' }),
    ];
    const dry = await t
      .http()
      .post('/api/v2/messages/bulk/validate')
      .set('X-API-Key', acc.key)
      .send({ messages, messagesPerSecond: 10 });
    expect(dry.status).toBe(200);
    expect(dry.body.data).toMatchObject({
      total: 4,
      valid: 4,
      invalid: 0,
      suppressed: 1,
      suppressedRows: [2],
      purposes: { transactional: 1, marketing: 3 },
      channels: { local_sms: 3 },
      estimatedCost: { wallet: 3 * 5, unpaid: 0 },
    });

    const res = await post(t, acc.key, { messages, messagesPerSecond: 10 });
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    const done = await waitStatus(t, acc.key, id, ['completed']);
    expect(done.counts).toEqual({ pending: 0, sent: 3, failed: 1, cancelled: 0 });
    const rows = await get(`/api/v2/messages/bulk/${id}/rows`);
    expect(rows.status).toBe(200);
    expect(
      rows.body.data.rows.map((r: { index: number; purpose: string; status: string; errorCode: string | null }) => [
        r.index,
        r.purpose,
        r.status,
        r.errorCode,
      ]),
    ).toEqual([
      [0, 'transactional', 'sent', null],
      [1, 'marketing', 'sent', null],
      [2, 'marketing', 'failed', 'RECIPIENT_OPTED_OUT'],
      [3, 'marketing', 'sent', null],
    ]);
    const logged = await ds(t).query(
      'SELECT row_index, purpose FROM messages WHERE bulk_job_id = ? ORDER BY row_index',
      [id],
    );
    expect(logged.map((m: { row_index: number; purpose: string }) => [Number(m.row_index), m.purpose])).toEqual([
      [0, 'transactional'],
      [1, 'marketing'],
      [3, 'marketing'],
    ]);
  });

  it('a scheduled message whose recipient opts out before it is due fails RECIPIENT_OPTED_OUT, refunded, never sent', async () => {
    const to = phone();
    const at = new Date(NOON + 3_600_000).toISOString();
    const res = await h.send(h.sms(to, 'Reminder', { scheduleAt: at }));
    expect(res.status).toBe(201);
    const id = res.body.data.messages[0].id as string;
    expect(res.body.data.messages[0]).toMatchObject({ status: 'scheduled', cost: 5, purpose: 'transactional' });
    expect(await h.wallet()).toBe(100_000 - 5);

    const sup = await t
      .http()
      .post('/api/v2/suppressions')
      .set('X-API-Key', acc.key)
      .send({ entries: [{ recipient: to, channel: 'all', scope: 'all' }] });
    expect(sup.status).toBe(200);
    setTime(NOON + 3_600_000);
    expect(await t.app.get(ScheduledSender).runOnce()).toBe(1);
    expect(await stored(id)).toMatchObject({ status: 'failed', error_code: 'RECIPIENT_OPTED_OUT' });
    expect(Number((await stored(id)).cost)).toBe(0);
    expect(await h.wallet()).toBe(100_000);
    expect(await h.delivered(to)).toEqual([]);
    const one = await get(`/api/v2/messages/${id}`);
    expect(one.body.data).toMatchObject({ status: 'failed', errorCode: 'RECIPIENT_OPTED_OUT', cost: 0 });
  });

  it('a scheduled marketing message due outside the sending hours waits for the next opening', async () => {
    await h.sender('Promo-AD', 'promotional');
    const to = '+966501112233';
    // Scheduled for 21:00 Riyadh; the account then narrows its window to close at 20:00.
    const at = Date.parse('2030-01-15T18:00:00.000Z');
    const res = await h.send(h.sms(to, 'Flash sale', { sender: 'Promo-AD', scheduleAt: new Date(at).toISOString() }));
    expect(res.status).toBe(201);
    const id = res.body.data.messages[0].id as string;
    expect(res.body.data.messages[0]).toMatchObject({ status: 'scheduled', purpose: 'marketing' });
    const narrowed = await h.compliance({ marketingWindow: { start: '09:00', end: '20:00' } });
    expect(narrowed.status).toBe(200);

    setTime(at);
    const sender = t.app.get(ScheduledSender);
    await sender.runOnce();
    const opens = Date.parse('2030-01-16T06:00:00.000Z');
    const [row] = await ds(t).query('SELECT status, scheduled_at, lease_owner FROM messages WHERE id = ?', [id]);
    expect({ status: row.status, at: Number(row.scheduled_at), owner: row.lease_owner }).toEqual({
      status: 'scheduled',
      at: opens,
      owner: null,
    });
    expect(await h.delivered(to)).toEqual([]);
    setTime(opens);
    expect(await sender.runOnce()).toBe(1);
    expect((await h.delivered(to)).map((x) => x.text)).toEqual([`Flash sale\n${FOOTER_EN}`]);
    expect(await stored(id)).toMatchObject({ status: 'sent' });
  });
});
