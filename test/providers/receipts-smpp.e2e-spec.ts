import { Env } from '../../src/config/app-config';
import { OutboundMessage } from '../../src/providers/provider.types';
import { ProvidersRegistry } from '../../src/providers/providers.registry';
import { DELIVER_SM_STATUS } from '../../src/providers/smpp/smpp-deliveries';
import { SmppProvider } from '../../src/providers/smpp/smpp.provider';
import { adapterConfig } from '../providers-fakes/adapter-config';
import { RecordingIntakes, smppDeliveries } from '../providers-fakes/recording-intakes';
import { SmppFake } from '../providers-fakes/smpp-fake';
import { Webhook } from 'standardwebhooks';
import { createTestApp, TestAccount, TestApp, waitFor } from '../support/app';
import { startReceiver, WebhookReceiver } from '../support/webhook-receiver';
import { UnitOfWork } from '../../src/database/unit-of-work';
import { decoders, query, Row, sql } from '../../src/database/sql';
import { DomainEvent, EVENT_SINK, EventSink } from '../../src/messaging/events/event-sink';
import { accountIdOf } from '../../src/common/account-id';

const CREDS = { systemId: 'esme1', password: 'pw123' };

function message(fields: Partial<OutboundMessage> = {}): OutboundMessage {
  return {
    messageId: 'msg_sms_1',
    accountId: accountIdOf('acc_1'),
    channel: 'local_sms',
    to: '+966501234567',
    sender: 'MyShop',
    text: 'Your code is 1234',
    ...fields,
  };
}

describe('SMPP receipts and inbound SMS at the adapter (deliver_sm from an SMSC built with the smpp package)', () => {
  let smsc: SmppFake;
  let intakes: RecordingIntakes;
  const opened: SmppProvider[] = [];

  function adapter(env: Env = {}): SmppProvider {
    const config = adapterConfig({
      PROVIDER_LOCAL_SMS: 'smpp',
      PROVIDER_TIMEOUT_MS: '2000',
      SMPP_URL: smsc.url,
      SMPP_SYSTEM_ID: CREDS.systemId,
      SMPP_PASSWORD: CREDS.password,
      ...env,
    });
    const provider = new SmppProvider(new ProvidersRegistry(config), config, smppDeliveries(config, intakes));
    provider.onModuleInit();
    opened.push(provider);
    return provider;
  }

  beforeEach(async () => {
    smsc = await new SmppFake(CREDS).start();
    intakes = new RecordingIntakes();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((p) => p.onApplicationShutdown()));
    await smsc.stop();
  });

  it('asks for a delivery receipt on every submit_sm', async () => {
    const registered: unknown[] = [];
    smsc.onSubmit = (pdu) => registered.push(pdu.registered_delivery);
    await adapter().send(message());
    expect(registered).toEqual([1]);
  });

  it('hands DELIVRD / UNDELIV receipts to the intake before answering OK', async () => {
    const sut = adapter();
    const sent = await sut.send(message());
    expect(sent).toEqual({ status: 'sent', providerMessageId: 'smsc-1' });
    expect(await smsc.receipt('smsc-1', 'DELIVRD')).toBe(DELIVER_SM_STATUS.ok);
    expect(await smsc.receipt('smsc-1', 'UNDELIV', { err: '034' })).toBe(DELIVER_SM_STATUS.ok);
    expect(intakes.receipts).toEqual([
      {
        providerMessageId: 'smsc-1',
        status: 'delivered',
        providerStatus: 'DELIVRD',
        errorCode: null,
        providerErrorCode: null,
        at: expect.any(Number),
      },
      {
        providerMessageId: 'smsc-1',
        status: 'failed',
        providerStatus: 'UNDELIV',
        errorCode: 'UNDELIVERED',
        providerErrorCode: '034',
        at: expect.any(Number),
      },
    ]);
  });

  it('reads the receipted_message_id / message_state TLVs of a receipt without text', async () => {
    await adapter().send(message());
    expect(
      await smsc.receipt('ignored', 'DELIVRD', {
        noText: true,
        tlv: { receiptedMessageId: 'smsc-1', messageState: 8 },
      }),
    ).toBe(0);
    expect(intakes.receipts).toEqual([
      expect.objectContaining({
        providerMessageId: 'smsc-1',
        status: 'failed',
        providerStatus: 'REJECTD',
        errorCode: 'REJECTED_BY_CARRIER',
      }),
    ]);
  });

  it('answers an error status (so the SMSC retries) when the intake could not store the receipt', async () => {
    await adapter().send(message());
    intakes.failing = true;
    expect(await smsc.receipt('smsc-1', 'DELIVRD')).toBe(DELIVER_SM_STATUS.retryLater);
    intakes.failing = false;
    expect(await smsc.receipt('smsc-1', 'DELIVRD')).toBe(DELIVER_SM_STATUS.ok);
    expect(intakes.receipts).toHaveLength(1);
  });

  it('acknowledges ENROUTE / ACCEPTD without a receipt; refuses an unreadable receipt', async () => {
    await adapter().send(message());
    expect(await smsc.receipt('smsc-1', 'ENROUTE')).toBe(0);
    expect(await smsc.receipt('smsc-1', 'ACCEPTD')).toBe(0);
    expect(await smsc.receipt('smsc-1', 'NONSENSE')).toBe(DELIVER_SM_STATUS.refused);
    expect(intakes.receipts).toEqual([]);
  });

  it('decimal ids: a hex submit_sm_resp id is stored as its decimal value, which the receipt text carries', async () => {
    smsc.hexIds = true;
    const sut = adapter({ SMPP_RECEIPT_ID_FORMAT: 'decimal' });
    const sent = await sut.send(message());
    const decimal = String(0xa0001);
    expect(sent).toEqual({ status: 'sent', providerMessageId: decimal });
    expect(await smsc.receipt('000A0001', 'DELIVRD', { textId: decimal })).toBe(0);
    expect(await smsc.receipt('x', 'EXPIRED', { textId: 'x', tlv: { receiptedMessageId: '000A0001' } })).toBe(0);
    expect(intakes.receipts.map((r) => [r.providerMessageId, r.status, r.errorCode])).toEqual([
      [decimal, 'delivered', null],
      [decimal, 'failed', 'EXPIRED'],
    ]);
  });

  it('a deliver_sm that is not a receipt is an inbound SMS, acknowledged once stored', async () => {
    const sut = adapter();
    await sut.send(message());
    expect(await smsc.inboundSms('966501234567', 'MyShop', 'STOP')).toBe(0);
    expect(intakes.inboundSms).toEqual([
      {
        from: '+966501234567',
        to: 'MyShop',
        text: 'STOP',
        providerMessageId: null,
        at: expect.any(Number),
        part: null,
      },
    ]);
    intakes.failing = true;
    expect(await smsc.inboundSms('966501234567', 'MyShop', 'again')).toBe(DELIVER_SM_STATUS.retryLater);
  });
});

describe('SMPP receipts and inbound SMS through the app (e2e)', () => {
  let smsc: SmppFake;
  let t: TestApp;
  let acc: TestAccount;
  let other: TestAccount;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    [smsc, receiver] = await Promise.all([new SmppFake(CREDS).start(), startReceiver()]);
    t = await createTestApp({
      env: {
        PROVIDER_LOCAL_SMS: 'smpp',
        PROVIDER_TIMEOUT_MS: '2000',
        SMPP_URL: smsc.url,
        SMPP_SYSTEM_ID: CREDS.systemId,
        SMPP_PASSWORD: CREDS.password,
        WEBHOOK_DELIVERY_INTERVAL_MS: '30',
      },
    });
    [acc, other] = await Promise.all([t.createAccount(), t.createAccount()]);
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([smsc?.stop(), receiver?.close()]);
  });

  const send = async (to: string): Promise<{ id: string; providerMessageId: string }> => {
    const res = await t
      .http()
      .post('/api/v2/messages/send')
      .set('X-API-Key', acc.key)
      .send({ to, channel: 'local_sms', messageType: 'free_text', content: { text: 'Your code is 1234' } });
    expect(res.status).toBe(201);
    const m = res.body.data.messages[0];
    expect(m.status).toBe('sent');
    return { id: m.id, providerMessageId: `smsc-${smsc.submits.length}` };
  };
  const message = async (id: string) =>
    (await t.http().get(`/api/v2/messages/${id}`).set('X-API-Key', acc.key).expect(200)).body.data;
  const approvedSender = async (a: TestAccount, name: string): Promise<string> => {
    const created = await t.http().post('/api/v2/sms-senders').set('X-API-Key', a.key).send({ name });
    expect(created.status).toBe(201);
    const id = created.body.data.smsSender.id as string;
    await t.admin('post', `/admin/v1/sms-senders/${id}/approve`).send({}).expect(200);
    return id;
  };
  /** An inbound_sms row as the tests compare it (the columns they select). */
  const inboundRow = (r: Row) => ({
    account_id: r.account_id,
    sender_id: r.sender_id,
    from_address: r.from_address,
    to_address: r.to_address,
    text: r.text,
  });
  const inboundRows = (text: string) =>
    t.app
      .get(UnitOfWork)
      .read(
        query(
          inboundRow,
          sql('SELECT account_id, sender_id, from_address, to_address, text FROM inbound_sms WHERE text = ?', text),
        ),
      );

  it('submit_sm asks for a receipt; DELIVRD moves the message to delivered, a later UNDELIV changes nothing', async () => {
    const m = await send('+966501230001');
    expect(smsc.submits.at(-1)).toMatchObject({ destination: '966501230001' });
    expect(await smsc.receipt(m.providerMessageId, 'DELIVRD')).toBe(0);
    await waitFor(async () => (await message(m.id)).status === 'delivered', { what: 'delivered' });
    expect(await smsc.receipt(m.providerMessageId, 'UNDELIV')).toBe(0);
    const after = await message(m.id);
    expect(after).toMatchObject({
      status: 'delivered',
      errorCode: null,
      deliveredAt: expect.any(String),
      failedAt: null,
    });
    expect(after.statusHistory.at(-1)).toMatchObject({
      status: 'delivered',
      source: 'provider',
      providerStatus: 'DELIVRD',
    });
    expect(after.statusHistory.filter((h: { status: string }) => h.status === 'failed')).toEqual([]);
  });

  it('a two-part SMS (UDH) is delivered once both parts are, and failed when one part is not', async () => {
    const long = async (to: string) => {
      const res = await t
        .http()
        .post('/api/v2/messages/send')
        .set('X-API-Key', acc.key)
        .send({ to, channel: 'local_sms', messageType: 'free_text', content: { text: 'Long notice '.repeat(20) } });
      expect(res.status).toBe(201);
      expect(res.body.data.messages[0]).toMatchObject({ status: 'sent', encoding: 'gsm7', segments: 2 });
      const n = smsc.submits.length;
      return { id: res.body.data.messages[0].id as string, parts: [`smsc-${n - 1}`, `smsc-${n}`] };
    };
    const a = await long('+966501239001');
    expect(await smsc.receipt(a.parts[0], 'DELIVRD')).toBe(0);
    // One part of two: still sent (the receipt is stored, the message waits for its other part).
    expect(await message(a.id)).toMatchObject({ status: 'sent', deliveredAt: null });
    expect(await smsc.receipt(a.parts[1], 'DELIVRD')).toBe(0);
    await waitFor(async () => (await message(a.id)).status === 'delivered', { what: 'delivered after both parts' });

    const b = await long('+966501239002');
    expect(await smsc.receipt(b.parts[0], 'DELIVRD')).toBe(0);
    expect(await smsc.receipt(b.parts[1], 'UNDELIV', { err: '001' })).toBe(0);
    await waitFor(async () => (await message(b.id)).status === 'failed', { what: 'failed after one part undelivered' });
    expect(await message(b.id)).toMatchObject({ status: 'failed', errorCode: 'UNDELIVERED', providerErrorCode: '001' });
  });

  it.each([
    ['UNDELIV', 'UNDELIVERED'],
    ['EXPIRED', 'EXPIRED'],
    ['REJECTD', 'REJECTED_BY_CARRIER'],
  ])('%s -> failed %s with the SMSC error code', async (stat, code) => {
    const m = await send(`+96650124${String(smsc.submits.length).padStart(4, '0')}`);
    expect(await smsc.receipt(m.providerMessageId, stat, { err: '034' })).toBe(0);
    await waitFor(async () => (await message(m.id)).status === 'failed', { what: `failed after ${stat}` });
    expect(await message(m.id)).toMatchObject({ status: 'failed', errorCode: code, providerErrorCode: '034' });
  });

  it('an inbound SMS to an approved sender name is stored for its account with sms.received, and acknowledged after', async () => {
    const senderId = await approvedSender(acc, 'RcptShop');
    // The outbox fan-out (EVENT_SINK) is observed in-process: the event must be recorded inside the storing unit of work.
    const sink = t.app.get<EventSink>(EVENT_SINK);
    const recorded: DomainEvent[] = [];
    const spy = jest.spyOn(sink, 'record').mockImplementation(async (tx, events) => {
      expect(
        (await tx.read(query(decoders.id, sql('SELECT id FROM inbound_sms WHERE text = ?', 'STOP please')))).length,
      ).toBe(1);
      recorded.push(...events);
    });
    try {
      expect(await smsc.inboundSms('966501234567', 'rcptshop', 'STOP please')).toBe(0);
    } finally {
      spy.mockRestore();
    }
    const rows = await t.app
      .get(UnitOfWork)
      .read(
        query(
          (r) => ({ id: String(r.id), ...inboundRow(r) }),
          sql(
            'SELECT id, account_id, sender_id, from_address, to_address, text FROM inbound_sms WHERE text = ?',
            'STOP please',
          ),
        ),
      );
    expect(rows).toEqual([
      {
        id: expect.stringMatching(/^isms_/),
        account_id: acc.id,
        sender_id: senderId,
        from_address: '+966501234567',
        to_address: 'rcptshop',
        text: 'STOP please',
      },
    ]);
    expect(recorded).toEqual([
      {
        accountId: acc.id,
        type: 'sms.received',
        at: expect.any(Number),
        data: {
          id: rows[0].id,
          from: '+966501234567',
          to: 'rcptshop',
          text: 'STOP please',
          senderId,
          receivedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        },
      },
    ]);
  });

  it('sms.received reaches the subscribed event endpoint of the account, signed (Standard Webhooks)', async () => {
    const endpoint = await t
      .http()
      .post('/api/v2/webhooks/endpoints')
      .set('X-API-Key', acc.key)
      .send({ url: receiver.url, events: ['sms.*'] });
    expect(endpoint.status).toBe(201);
    const senderId = await approvedSender(acc, 'HookShop');
    expect(await smsc.inboundSms('966501234567', 'HookShop', 'STOP via endpoint')).toBe(0);
    const call = await waitFor(
      async () =>
        receiver.calls.find((c) => (c.body as { data?: { text?: string } })?.data?.text === 'STOP via endpoint'),
      { what: 'sms.received delivery' },
    );
    expect(
      new Webhook(endpoint.body.data.endpoint.secret).verify(call.raw, call.headers as Record<string, string>),
    ).toBeTruthy();
    const [id] = await t.app
      .get(UnitOfWork)
      .read(query(decoders.id, sql('SELECT id FROM inbound_sms WHERE text = ?', 'STOP via endpoint')));
    expect(call.body).toEqual({
      type: 'sms.received',
      timestamp: expect.any(String),
      livemode: true,
      data: {
        id,
        from: '+966501234567',
        to: 'HookShop',
        text: 'STOP via endpoint',
        senderId,
        receivedAt: expect.any(String),
      },
    });
  });

  it('an inbound SMS whose event cannot be recorded is not stored and not acknowledged (the SMSC sends it again)', async () => {
    await approvedSender(acc, 'RcptShop2');
    const spy = jest.spyOn(t.app.get<EventSink>(EVENT_SINK), 'record').mockRejectedValue(new Error('outbox down'));
    try {
      expect(await smsc.inboundSms('966501234567', 'RcptShop2', 'retry me')).toBe(DELIVER_SM_STATUS.retryLater);
    } finally {
      spy.mockRestore();
    }
    expect(await inboundRows('retry me')).toEqual([]);
    expect(await smsc.inboundSms('966501234567', 'RcptShop2', 'retry me')).toBe(0);
    expect(await inboundRows('retry me')).toHaveLength(1);
  });

  it('a receipt that arrives before the submit_sm_resp is applied once the send is recorded', async () => {
    smsc.receiptBeforeResponse = 'DELIVRD';
    try {
      const m = await send('+966501239001');
      await waitFor(async () => (await message(m.id)).status === 'delivered', { what: 'early receipt applied' });
    } finally {
      smsc.receiptBeforeResponse = null;
    }
  });

  it('an inbound SMS to a name no account (or several accounts) holds is kept without an account', async () => {
    expect(await smsc.inboundSms('966501234567', 'NoSuchName', 'hello?')).toBe(0);
    await approvedSender(acc, 'Shared1');
    await approvedSender(other, 'Shared1');
    expect(await smsc.inboundSms('966501234567', 'Shared1', 'which one?')).toBe(0);
    expect(await inboundRows('hello?')).toEqual([
      { account_id: null, sender_id: null, from_address: '+966501234567', to_address: 'NoSuchName', text: 'hello?' },
    ]);
    expect(await inboundRows('which one?')).toEqual([
      expect.objectContaining({ account_id: null, to_address: 'Shared1' }),
    ]);
  });
});
