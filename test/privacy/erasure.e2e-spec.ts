import { post, waitStatus } from '../support/bulk-helpers';
import { createTestApp, TestAccount, TestApp } from '../support/app';
import { expectError } from '../support/envelope';
import { privacyHelpers } from '../support/privacy-helpers';

// Erasure of one recipient: what is anonymised per kind, what is kept, another account untouched.
const PHONE = '+966501234567';
const OTHER = '+966501234568';

describe('Privacy: erasure of one recipient (e2e)', () => {
  let t: TestApp;
  let acc: TestAccount;
  const h = privacyHelpers(() => t);
  beforeAll(async () => {
    t = await createTestApp({
      env: { ERASURE_TICK_MS: '200', BULK_VALIDATION_TICK_MS: '20', BULK_DISPATCH_TICK_MS: '20' },
    });
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(async () => {
    acc = await t.createAccount();
  });

  const messages = (accountId: string) =>
    h
      .db()
      .query(
        'SELECT id, recipient, status, cost, paid_from, payload, error_message, sent_at, created_at FROM messages WHERE account_id = ? ORDER BY id',
        [accountId],
      );

  it('anonymises every kind that names the recipient and keeps counts, costs, statuses and times', async () => {
    for (const text of ['secret one', 'secret two']) expect((await h.sendSms(acc, PHONE, text)).status).toBe(201);
    expect((await h.sendSms(acc, OTHER, 'kept text')).status).toBe(201);
    const job = await post(t, acc.key, {
      name: 'erase',
      messagesPerSecond: 10,
      messages: [
        { to: PHONE, channel: 'local_sms', messageType: 'free_text', content: { text: 'bulk secret' } },
        { to: OTHER, channel: 'local_sms', messageType: 'free_text', content: { text: 'bulk kept' } },
      ],
    });
    expect(job.status).toBe(202);
    const jobBefore = await waitStatus(t, acc.key, job.body.id, ['completed'], 30000);
    const smsId = await h.inboundSms(acc.id, '966501234567', 'inbound secret');
    // Its two parts, as the intake keeps a joined concatenated SMS.
    for (const [seq, text] of [
      [1, 'inbound '],
      [2, 'secret'],
    ] as const)
      await h
        .db()
        .query(
          'INSERT INTO inbound_sms_parts (id, group_key, part_key, seq, total, from_address, to_address, text, received_at, inbound_sms_id) VALUES (?, ?, ?, ?, 2, ?, ?, ?, ?, ?)',
          [`isp_${seq}_${smsId}`, 'g', `p${seq}`, seq, '966501234567', 'ACME', text, Date.now(), smsId],
        );
    const deliveryId = await h.pendingDelivery(acc.id, PHONE, 'webhook secret');
    const before = await messages(acc.id);

    const res = await h.requestErasure(acc, '0501234567'); // national form: normalised like `to`
    expect(res.status).toBe(202);
    const erasure = res.body.data.erasure;
    expect(erasure).toMatchObject({ id: expect.stringMatching(/^era_/), recipientHash: h.hash(acc.id, PHONE) });
    const done = await h.completed(acc, erasure.id);
    expect(done.counts).toEqual({
      messages: 3,
      bulkRows: 1,
      inboundSms: 1,
      webInbound: 0,
      verifications: 0,
      webhookDeliveries: 1,
      suppressions: 0,
      sandboxDeliveries: 3,
    });
    expect(done.completedAt).toEqual(expect.any(String));
    const sandbox = await h
      .db()
      .query('SELECT recipient, text, subject FROM sandbox_deliveries WHERE account_id = ? ORDER BY id', [acc.id]);
    expect(sandbox.filter((d: { recipient: string }) => d.recipient === h.hash(acc.id, PHONE))).toEqual([
      { recipient: h.hash(acc.id, PHONE), text: '', subject: null },
      { recipient: h.hash(acc.id, PHONE), text: '', subject: null },
      { recipient: h.hash(acc.id, PHONE), text: '', subject: null },
    ]);
    expect(sandbox.filter((d: { recipient: string }) => d.recipient !== h.hash(acc.id, PHONE))).toEqual([
      { recipient: OTHER, text: 'kept text', subject: null },
      { recipient: OTHER, text: 'bulk kept', subject: null },
    ]);

    const hash = h.hash(acc.id, PHONE);
    const after = await messages(acc.id);
    expect(after.map((m: { id: string }) => m.id)).toEqual(before.map((m: { id: string }) => m.id));
    for (const [i, m] of after.entries()) {
      const b = before[i];
      expect([m.status, Number(m.cost), m.paid_from, m.sent_at, m.created_at]).toEqual([
        b.status,
        Number(b.cost),
        b.paid_from,
        b.sent_at,
        b.created_at,
      ]);
      expect(m.recipient).toBe(b.recipient === PHONE ? hash : OTHER);
    }
    expect(after.filter((m: { recipient: string }) => m.recipient === hash)).toHaveLength(3);

    const rows = await h
      .db()
      .query('SELECT to_addr, payload, status FROM bulk_rows WHERE job_id = ? ORDER BY idx', [job.body.id]);
    expect(rows.map((r: { to_addr: string }) => r.to_addr)).toEqual([hash, OTHER]);
    expect(rows[0].payload).toBe('{}');
    expect(rows[1].payload).toContain('bulk kept');
    expect(rows.map((r: { status: string }) => r.status)).toEqual(['sent', 'sent']);
    const jobAfter = await waitStatus(t, acc.key, job.body.id, ['completed']);
    expect(jobAfter.counts).toEqual(jobBefore.counts);

    const inbound = await h.db().query('SELECT from_address, text FROM inbound_sms WHERE account_id = ?', [acc.id]);
    expect(inbound).toEqual([{ from_address: hash, text: '' }]);
    const parts = await h
      .db()
      .query('SELECT from_address, text FROM inbound_sms_parts WHERE inbound_sms_id = ?', [smsId]);
    expect(parts).toEqual([
      { from_address: hash, text: '' },
      { from_address: hash, text: '' },
    ]);
    const [delivery] = await h.db().query('SELECT body FROM webhook_deliveries WHERE id = ?', [deliveryId]);
    expect(delivery.body).not.toContain('501234567');
    expect(JSON.parse(delivery.body).data).toEqual({ from: hash });

    // Nothing of the plain recipient is left in the erasure row either.
    const [row] = await h.db().query('SELECT recipient FROM erasures WHERE id = ?', [erasure.id]);
    expect(row.recipient).toBeNull();
  });

  it("never touches another account's data, and another account cannot read the erasure", async () => {
    const other = await t.createAccount();
    expect((await h.sendSms(other, PHONE, 'their text')).status).toBe(201);
    await h.inboundSms(other.id, '+966501234567', 'their inbound');
    expect((await h.sendSms(acc, PHONE, 'mine')).status).toBe(201);
    const res = await h.requestErasure(acc, PHONE);
    const done = await h.completed(acc, res.body.data.erasure.id);
    expect(done.counts).toMatchObject({ messages: 1, inboundSms: 0 });
    expect(await messages(other.id)).toEqual([expect.objectContaining({ recipient: PHONE })]);
    expect(
      await h.db().query('SELECT recipient, text FROM sandbox_deliveries WHERE account_id = ?', [other.id]),
    ).toEqual([{ recipient: PHONE, text: 'their text' }]);
    expect(await h.db().query('SELECT from_address, text FROM inbound_sms WHERE account_id = ?', [other.id])).toEqual([
      { from_address: '+966501234567', text: 'their inbound' },
    ]);
    expectError(await h.getErasure(other, res.body.data.erasure.id), 404, 'NOT_FOUND');
  });

  it('is idempotent per recipient: a repeat while running or after answers the same erasure; a later one erases new rows', async () => {
    expect((await h.sendSms(acc, PHONE, 'first')).status).toBe(201);
    const a = await h.requestErasure(acc, PHONE);
    const b = await h.requestErasure(acc, '+966 50 123 4567');
    expect(b.status).toBe(202);
    expect(b.body.data.erasure.id).toBe(a.body.data.erasure.id);
    const first = await h.completed(acc, a.body.data.erasure.id);
    expect(first.counts).toMatchObject({ messages: 1 });

    expect((await h.sendSms(acc, PHONE, 'second')).status).toBe(201);
    const c = await h.requestErasure(acc, PHONE);
    expect(c.status).toBe(202);
    expect(c.body.data.erasure.id).toBe(a.body.data.erasure.id);
    const again = await h.completed(acc, a.body.data.erasure.id);
    expect(again.counts).toMatchObject({ messages: 2 });
    const left = await h
      .db()
      .query('SELECT COUNT(*) AS n FROM messages WHERE account_id = ? AND recipient = ?', [acc.id, PHONE]);
    expect(Number(left[0].n)).toBe(0);
  });

  it('keeps an opt-out of the erased recipient: the entry loses its plain recipient and still refuses sends', async () => {
    await t
      .http()
      .post('/api/v2/suppressions')
      .set('X-API-Key', acc.key)
      .send({ entries: [{ recipient: PHONE, scope: 'all' }] })
      .expect(200);
    const res = await h.requestErasure(acc, PHONE);
    const done = await h.completed(acc, res.body.data.erasure.id);
    expect(done.counts).toMatchObject({ suppressions: 1 });
    const stored = await h
      .db()
      .query('SELECT recipient, recipient_hash FROM suppressions WHERE account_id = ?', [acc.id]);
    expect(stored).toEqual([{ recipient: null, recipient_hash: h.hash(acc.id, PHONE) }]);
    const listed = await t.http().get('/api/v2/suppressions').set('X-API-Key', acc.key).expect(200);
    expect(listed.body.data.suppressions).toEqual([expect.objectContaining({ recipient: null, scope: 'all' })]);
    const refused = await h.sendSms(acc, PHONE, 'after erasure');
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('RECIPIENT_OPTED_OUT');
  });

  it('emits privacy.erasure.completed with the erasure to a subscribed endpoint', async () => {
    const ep = await t
      .http()
      .post('/api/v2/webhooks/endpoints')
      .set('X-API-Key', acc.key)
      .send({ url: 'http://127.0.0.1:9/hook', events: ['privacy.*'] });
    expect(ep.status).toBe(201);
    expect((await h.sendSms(acc, PHONE, 'gone')).status).toBe(201);
    const res = await h.requestErasure(acc, PHONE);
    const done = await h.completed(acc, res.body.data.erasure.id);
    const rows = await h
      .db()
      .query('SELECT event, body FROM webhook_deliveries WHERE account_id = ? AND endpoint_id = ?', [
        acc.id,
        ep.body.data.endpoint.id,
      ]);
    expect(rows.map((r: { event: string }) => r.event)).toEqual(['privacy.erasure.completed']);
    const body = JSON.parse(rows[0].body);
    expect(body.type).toBe('privacy.erasure.completed');
    expect(body.data).toEqual(done);
    expect(rows[0].body).not.toContain('501234567');
  });

  it('refuses what is not a recipient, and member keys', async () => {
    expectError(await h.requestErasure(acc, 'not a number'), 400, 'INVALID_RECIPIENT');
    expectError(await h.requestErasure(acc, 12), 400, 'VALIDATION_ERROR');
    expectError(await h.requestErasure(acc, ''), 400, 'VALIDATION_ERROR');
    const member = await t.memberKey(acc.id, ['messages:read', 'messages:create']);
    expectError(await h.requestErasure(member, PHONE), 403, 'FORBIDDEN');
    expectError(await h.getErasure(acc, 'era_unknown'), 404, 'NOT_FOUND');
  });
});
