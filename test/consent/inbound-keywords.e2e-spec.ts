import { SuppressionsService } from '../../src/consent/suppressions.service';
import { SmppFake } from '../providers-fakes/smpp-fake';
import { TestAccount, TestApp, waitFor } from '../support/app';
import { startReceiver, WebhookReceiver } from '../support/webhook-receiver';
import { approvedSender, smppApp, uniqueName, uniqueNumber } from '../support/inbound-helpers';
import { accountIdOf } from '../../src/common/account-id';

// Issue 28 item 4: opt-out / opt-in / HELP keywords on SMS that reach an account's sender name over SMPP.
describe('Inbound keywords over SMPP (e2e)', () => {
  let smsc: SmppFake;
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    [{ t, smsc }, receiver] = await Promise.all([smppApp(), startReceiver()]);
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([smsc?.stop(), receiver?.close()]);
  });

  const entries = (acc: TestAccount, from: string) =>
    t.app.get(SuppressionsService).list(accountIdOf(acc.id), { recipient: `+${from}`, limit: 10 });
  const inboundIds = async (acc: TestAccount): Promise<string[]> =>
    (await t.http().get('/api/v2/sms/inbound').set('X-API-Key', acc.key).expect(200)).body.data.inboundSms.map(
      (s: { id: string }) => s.id,
    );
  const subscribe = async (acc: TestAccount) => {
    const res = await t
      .http()
      .post('/api/v2/webhooks/endpoints')
      .set('X-API-Key', acc.key)
      .send({ url: receiver.url, events: ['recipient.*'] });
    expect(res.status).toBe(201);
  };
  const eventsFor = (recipient: string) =>
    receiver.calls
      .map((c) => c.body as { type: string; data: { recipient: string } })
      .filter((b) => b.data?.recipient === recipient);

  it('an Arabic STOP with diacritics suppresses the number that sent it for that account; START lifts it; events reach the endpoint', async () => {
    const acc = await t.createAccount();
    const other = await t.createAccount();
    await subscribe(acc);
    const name = uniqueName('Kw');
    await approvedSender(t, acc, name);
    const from = uniqueNumber();

    expect(await smsc.inboundSms(from, name, ' إِيقَـــافْ ')).toBe(0);
    const [stopId] = await inboundIds(acc);
    expect(await entries(acc, from)).toEqual([
      expect.objectContaining({
        recipient: `+${from}`,
        channel: 'local_sms',
        scope: 'all',
        reason: 'keyword',
        source: stopId,
      }),
    ]);
    expect(await entries(other, from)).toEqual([]);
    await waitFor(async () => eventsFor(`+${from}`).length === 1, { what: 'recipient.opted_out' });
    expect(eventsFor(`+${from}`)[0]).toEqual({
      type: 'recipient.opted_out',
      timestamp: expect.any(String),
      livemode: true,
      data: {
        recipient: `+${from}`,
        channel: 'local_sms',
        keyword: 'ايقاف',
        inboundMessageId: stopId,
        to: name,
        at: expect.any(String),
      },
    });
    // A send to that number is refused while the entry stands (enforced by consent's SEND_POLICY when wired).

    expect(await smsc.inboundSms(from, name, 'Start')).toBe(0);
    expect(await entries(acc, from)).toEqual([]);
    await waitFor(async () => eventsFor(`+${from}`).length === 2, { what: 'recipient.opted_in' });
    expect(eventsFor(`+${from}`)[1]).toMatchObject({ type: 'recipient.opted_in', data: { keyword: 'START' } });
    // Both keywords are stored as inbound SMS too.
    expect(await inboundIds(acc)).toHaveLength(2);
  });

  it('a keyword in a concatenated SMS counts once joined; a sentence containing STOP is no keyword', async () => {
    const acc = await t.createAccount();
    const name = uniqueName('Kc');
    await approvedSender(t, acc, name);
    const from = uniqueNumber();
    expect(await smsc.inboundSms(from, name, 'please do not stop')).toBe(0);
    expect(await entries(acc, from)).toEqual([]);
    await smsc.inboundPart(from, name, 'UNSUB', { form: 'u8', ref: 3, total: 2, seq: 1 });
    expect(await entries(acc, from)).toEqual([]);
    await smsc.inboundPart(from, name, 'SCRIBE', { form: 'u8', ref: 3, total: 2, seq: 2 });
    expect(await entries(acc, from)).toEqual([expect.objectContaining({ reason: 'keyword' })]);
  });

  it('HELP is stored and answered with the account’s help text, a paid SMS from the sender it was sent to', async () => {
    const acc = await t.createAccount();
    const name = uniqueName('Kh');
    await approvedSender(t, acc, name);
    const from = uniqueNumber();
    const before = smsc.submits.length;
    expect(await smsc.inboundSms(from, name, 'مساعده')).toBe(0);
    const reply = smsc.submits.slice(before).find((s) => s.destination === from);
    expect(reply).toMatchObject({ source: name, text: expect.stringContaining('إلغاء') });
    const messages = await t.http().get('/api/v2/messages').set('X-API-Key', acc.key).expect(200);
    expect(messages.body.data.messages).toEqual([
      expect.objectContaining({ to: `+${from}`, channel: 'local_sms', status: 'sent', cost: expect.any(Number) }),
    ]);
    expect(messages.body.data.messages[0].cost).toBeGreaterThan(0);
    expect(await entries(acc, from)).toEqual([]);
    expect(await inboundIds(acc)).toHaveLength(1);
  });

  it('the owner adds keywords and turns confirmations on (GET/PATCH /api/v2/account/keywords)', async () => {
    const acc = await t.createAccount();
    const path = '/api/v2/account/keywords';
    const initial = await t.http().get(path).set('X-API-Key', acc.key);
    expect(initial.status).toBe(200);
    expect(initial.body.data).toMatchObject({ extraKeywords: [], confirmations: { enabled: false } });
    expect(initial.body.data.defaultKeywords).toContainEqual({ word: 'توقف', kind: 'opt_out' });

    const clash = await t
      .http()
      .patch(path)
      .set('X-API-Key', acc.key)
      .send({ extraKeywords: [{ word: 'stop!', kind: 'opt_in' }] });
    expect(clash.status).toBe(400);
    expect(clash.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    const badKind = await t
      .http()
      .patch(path)
      .set('X-API-Key', acc.key)
      .send({ extraKeywords: [{ word: 'x', kind: 'maybe' }] });
    expect(badKind.status).toBe(400);
    const member = await t.memberKey(acc.id, ['messages:read', 'messages:create']);
    expect((await t.http().patch(path).set('X-API-Key', member).send({})).status).toBe(403);

    const saved = await t
      .http()
      .patch(path)
      .set('X-API-Key', acc.key)
      .send({ extraKeywords: [{ word: 'Basta', kind: 'opt_out' }], confirmations: { enabled: true } });
    expect(saved.status).toBe(200);
    expect(saved.body.data).toMatchObject({
      extraKeywords: [{ word: 'Basta', kind: 'opt_out' }],
      confirmations: { enabled: true },
    });
    expect((await t.http().get(path).set('X-API-Key', member)).body.data).toEqual(saved.body.data);

    const name = uniqueName('Kx');
    await approvedSender(t, acc, name);
    const from = uniqueNumber();
    const before = smsc.submits.length;
    expect(await smsc.inboundSms(from, name, 'BASTA')).toBe(0);
    expect(await entries(acc, from)).toEqual([expect.objectContaining({ reason: 'keyword' })]);
    // The confirmation went out (English: the keyword is the account's own), before the entry took effect.
    expect(smsc.submits.slice(before).map((s) => [s.destination, s.text])).toEqual([
      [from, expect.stringContaining('START')],
    ]);
  });
});
