import { UnitOfWork } from '../../src/database/unit-of-work';
import { query, sql, Stmt } from '../../src/database/sql';
import { INBOUND_PART_HOLD_MS, InboundSmsService } from '../../src/senders/inbound-sms/inbound-sms.service';
import { SmppFake } from '../providers-fakes/smpp-fake';
import { TestAccount, TestApp } from '../support/app';
import { approvedSender, smppApp, uniqueName, uniqueNumber } from '../support/inbound-helpers';

// Issue 28 item 8: concatenated inbound SMS joined with their parts, SMSC redeliveries stored once,
// GET /api/v2/sms/inbound.
describe('Inbound SMS over SMPP (e2e)', () => {
  let smsc: SmppFake;
  let t: TestApp;

  beforeAll(async () => ({ t, smsc } = await smppApp()));
  afterAll(async () => {
    await t?.close();
    await smsc?.stop();
  });

  const list = (a: TestAccount, params: Record<string, string | number> = {}) =>
    t.http().get('/api/v2/sms/inbound').query(params).set('X-API-Key', a.key);
  const textsFrom = (from: string) =>
    t.app
      .get(UnitOfWork)
      .read(query((r) => String(r.text), sql('SELECT id, text FROM inbound_sms WHERE from_address = ?', `+${from}`)));
  /** The seq of each inbound_sms_parts row `stmt` selects. */
  const seqs = (stmt: Stmt) => t.app.get(UnitOfWork).read(query((r) => Number(r.seq), stmt));

  it.each([
    ['u8', 200],
    ['u16', 40_000],
    ['sar', 513],
  ] as const)('parts with a %s reference are joined in order into one SMS that keeps them', async (form, ref) => {
    const acc = await t.createAccount();
    const name = uniqueName('Cc');
    const senderId = await approvedSender(t, acc, name);
    const from = uniqueNumber();
    const texts = ['مرحبا، هذه ', 'رسالة طويلة ', 'من ثلاثة أجزاء'];
    // Out of order: 3, 1, 2.
    for (const seq of [3, 1, 2])
      expect(await smsc.inboundPart(from, name, texts[seq - 1], { form, ref, total: 3, seq })).toBe(0);
    const res = await list(acc);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        inboundSms: [
          {
            id: expect.stringMatching(/^isms_/),
            from: `+${from}`,
            to: name,
            text: texts.join(''),
            senderId,
            receivedAt: expect.any(String),
            partsTotal: 3,
            partsReceived: 3,
            complete: true,
            parts: texts.map((text, i) => ({ seq: i + 1, text, receivedAt: expect.any(String) })),
            livemode: true,
          },
        ],
        nextCursor: null,
        hasMore: false,
      },
    });
  });

  it('two sets from one number with different references stay apart; a part of an open set is not stored alone', async () => {
    const acc = await t.createAccount();
    const name = uniqueName('Cd');
    await approvedSender(t, acc, name);
    const from = uniqueNumber();
    await smsc.inboundPart(from, name, 'A1-', { form: 'u8', ref: 7, total: 2, seq: 1 });
    await smsc.inboundPart(from, name, 'B1-', { form: 'u8', ref: 8, total: 2, seq: 1 });
    expect((await list(acc)).body.data.inboundSms).toEqual([]);
    await smsc.inboundPart(from, name, 'B2', { form: 'u8', ref: 8, total: 2, seq: 2 });
    await smsc.inboundPart(from, name, 'A2', { form: 'u8', ref: 7, total: 2, seq: 2 });
    expect((await list(acc)).body.data.inboundSms.map((s: { text: string }) => s.text)).toEqual(['A1-A2', 'B1-B2']);
  });

  it('an SMSC redelivery (lost deliver_sm_resp) of a whole SMS or of a part is acknowledged and stored once', async () => {
    const acc = await t.createAccount();
    const name = uniqueName('Rd');
    await approvedSender(t, acc, name);
    const from = uniqueNumber();
    expect(await smsc.inboundSms(from, name, 'Is my order ready?')).toBe(0);
    expect(await smsc.inboundSms(from, name, 'Is my order ready?')).toBe(0);
    // A part redelivered while its set is open, and again after the set was joined.
    const part = (seq: number, text: string) =>
      smsc.inboundPart(from, name, text, { form: 'u16', ref: 4242, total: 2, seq });
    expect(await part(1, 'Second ')).toBe(0);
    expect(await part(1, 'Second ')).toBe(0);
    expect(await part(2, 'question')).toBe(0);
    expect(await part(2, 'question')).toBe(0);
    expect(await part(1, 'Second ')).toBe(0);
    expect((await textsFrom(from)).sort()).toEqual(['Is my order ready?', 'Second question']);
    // The same text after another message is a new message, not a redelivery.
    expect(await smsc.inboundSms(from, name, 'Is my order ready?')).toBe(0);
    expect(await textsFrom(from)).toHaveLength(3);
    expect(
      await seqs(sql('SELECT seq FROM inbound_sms_parts WHERE from_address = ? ORDER BY seq', `+${from}`)),
    ).toEqual([1, 2]);
  });

  it('a set still incomplete after the hold is stored as partial (missing parts left out); a late part starts a new set', async () => {
    const acc = await t.createAccount();
    const name = uniqueName('Pa');
    await approvedSender(t, acc, name);
    const from = uniqueNumber();
    await smsc.inboundPart(from, name, 'one ', { form: 'sar', ref: 9, total: 3, seq: 1 });
    await smsc.inboundPart(from, name, 'three', { form: 'sar', ref: 9, total: 3, seq: 3 });
    const inbound = t.app.get(InboundSmsService);
    // Before the hold is over nothing moves.
    await inbound.storeIncomplete(Date.now());
    expect((await list(acc)).body.data.inboundSms).toEqual([]);
    expect(await inbound.storeIncomplete(Date.now() + INBOUND_PART_HOLD_MS + 1000)).toBeGreaterThanOrEqual(1);
    const [sms] = (await list(acc)).body.data.inboundSms;
    expect(sms).toMatchObject({
      text: 'one three',
      partsTotal: 3,
      partsReceived: 2,
      complete: false,
      parts: [
        { seq: 1, text: 'one ' },
        { seq: 3, text: 'three' },
      ],
    });
    // A second sweep finds nothing of it again.
    await inbound.storeIncomplete(Date.now() + INBOUND_PART_HOLD_MS + 1000);
    expect((await list(acc)).body.data.inboundSms).toHaveLength(1);
    // The missing part, late: the first of a new set, which waits for its others.
    expect(await smsc.inboundPart(from, name, 'two ', { form: 'sar', ref: 9, total: 3, seq: 2 })).toBe(0);
    expect((await list(acc)).body.data.inboundSms).toHaveLength(1);
    expect(
      await seqs(
        sql('SELECT seq FROM inbound_sms_parts WHERE from_address = ? AND inbound_sms_id IS NULL', `+${from}`),
      ),
    ).toEqual([2]);
  });

  it('GET /api/v2/sms/inbound filters by sender name, from and time, pages by cursor, and is the account’s own', async () => {
    const acc = await t.createAccount();
    const other = await t.createAccount();
    const [a, b] = [uniqueName('Fa'), uniqueName('Fb')];
    await approvedSender(t, acc, a);
    await approvedSender(t, acc, b);
    const [n1, n2] = [uniqueNumber(), uniqueNumber()];
    const before = new Date(Date.now() - 1000).toISOString();
    await smsc.inboundSms(n1, a, 'first');
    await smsc.inboundSms(n2, a, 'second');
    await smsc.inboundSms(n1, b, 'third');
    const texts = async (q: Record<string, string | number>) => {
      const res = await list(acc, q);
      expect(res.status).toBe(200);
      return res.body.data.inboundSms.map((s: { text: string }) => s.text);
    };
    expect(await texts({})).toEqual(['third', 'second', 'first']);
    expect(await texts({ sender: a.toLowerCase() })).toEqual(['second', 'first']);
    expect(await texts({ from: `+${n1}` })).toEqual(['third', 'first']);
    expect(await texts({ from: n1, sender: b })).toEqual(['third']);
    expect(await texts({ since: before })).toHaveLength(3);
    expect(await texts({ until: before })).toEqual([]);
    expect(await texts({ since: new Date(Date.now() + 60_000).toISOString() })).toEqual([]);

    const page1 = await list(acc, { limit: 2 });
    expect(page1.body.data).toMatchObject({ hasMore: true, nextCursor: expect.any(String) });
    const page2 = await list(acc, { limit: 2, cursor: page1.body.data.nextCursor });
    expect(page2.body.data.inboundSms.map((s: { text: string }) => s.text)).toEqual(['first']);
    expect(page2.body.data).toMatchObject({ hasMore: false, nextCursor: null });

    expect((await list(other)).body.data.inboundSms).toEqual([]);
    const foreign = await list(other, { cursor: page1.body.data.nextCursor });
    expect(foreign.status).toBe(400);
    expect(foreign.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
  });

  it('bad filters are 400 VALIDATION_ERROR; a key without messages:read is 403; no key 401', async () => {
    const acc = await t.createAccount();
    const bad: Record<string, string | number>[] = [
      { since: 'yesterday' },
      { limit: 0 },
      { limit: 101 },
      { from: 'not a number!' },
      { cursor: 'x.y' },
    ];
    for (const q of bad) {
      const res = await list(acc, q);
      expect({ q, status: res.status, code: res.body.code }).toEqual({ q, status: 400, code: 'VALIDATION_ERROR' });
      expect(res.body).toMatchObject({ success: false, error: expect.any(String), requestId: expect.any(String) });
    }
    const reversed = await list(acc, { since: '2026-01-02T00:00:00Z', until: '2026-01-01T00:00:00Z' });
    expect(reversed.status).toBe(400);
    const noRead = await t.memberKey(acc.id, ['messages:create']);
    const forbidden = await t.http().get('/api/v2/sms/inbound').set('X-API-Key', noRead);
    expect(forbidden.status).toBe(403);
    expect((await t.http().get('/api/v2/sms/inbound')).status).toBe(401);
  });
});
