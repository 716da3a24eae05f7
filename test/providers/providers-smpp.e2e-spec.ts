import { Env } from '../../src/config/app-config';
import { OutboundMessage, ProviderError } from '../../src/providers/provider.types';
import { ProvidersRegistry } from '../../src/providers/providers.registry';
import { referenceHash, SmppProvider } from '../../src/providers/smpp/smpp.provider';
import { adapterConfig } from '../providers-fakes/adapter-config';
import { closedPort } from '../providers-fakes/http-fake';
import { smppDeliveries } from '../providers-fakes/recording-intakes';
import { SmppFake } from '../providers-fakes/smpp-fake';
import { waitFor } from '../providers-fakes/wait-for';
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

async function providerError(p: Promise<unknown>): Promise<ProviderError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

/** A provider timeout for the cases that wait on one. */
const SHORT = { PROVIDER_TIMEOUT_MS: '500' };

describe('SmppProvider against an SMSC built with the smpp package', () => {
  let smsc: SmppFake;
  const opened: SmppProvider[] = [];

  function adapter(env: Env = {}): SmppProvider {
    const config = adapterConfig({
      PROVIDER_LOCAL_SMS: 'smpp',
      // Healthy exchanges get 3 s (a loaded CI box); the cases about a timeout ask for SHORT.
      PROVIDER_TIMEOUT_MS: '3000',
      SMPP_URL: smsc.url,
      SMPP_SYSTEM_ID: CREDS.systemId,
      SMPP_PASSWORD: CREDS.password,
      SMPP_RECONNECT_MAX_MS: '200',
      ...env,
    });
    const provider = new SmppProvider(new ProvidersRegistry(config), config, smppDeliveries(config));
    provider.onModuleInit();
    opened.push(provider);
    return provider;
  }

  beforeEach(async () => {
    smsc = await new SmppFake(CREDS).start();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((p) => p.onApplicationShutdown()));
    await smsc.stop();
  });

  it('binds once and submits with the SMSC message id, our id in a TLV and user_message_reference', async () => {
    const sut = adapter();
    await expect(sut.send(message())).resolves.toEqual({ status: 'sent', providerMessageId: 'smsc-1' });
    await expect(
      sut.send(message({ messageId: 'msg_sms_2', to: '+966501234568', sender: '966500000009' })),
    ).resolves.toEqual({ status: 'sent', providerMessageId: 'smsc-2' });
    expect(smsc.binds).toBe(1);
    const single = { dataCoding: 0, esmClass: 0, payload: false, concat: null };
    expect(smsc.submits).toEqual([
      {
        destination: '966501234567',
        source: 'MyShop',
        sourceTon: 5,
        text: 'Your code is 1234',
        clientRef: 'msg_sms_1',
        userRef: referenceHash('msg_sms_1'),
        session: 1,
        ...single,
        messageId: 'smsc-1',
      },
      {
        destination: '966501234568',
        source: '966500000009',
        sourceTon: 1,
        text: 'Your code is 1234',
        clientRef: 'msg_sms_2',
        userRef: referenceHash('msg_sms_2'),
        session: 1,
        ...single,
        messageId: 'smsc-2',
      },
    ]);
  });

  it('sends long and non-Latin text intact', async () => {
    const long = 'x'.repeat(300);
    const arabic = 'رمز التحقق الخاص بك هو 1234';
    await adapter().send(message({ text: long }));
    await adapter().send(message({ text: arabic }));
    expect(smsc.reassembled()).toEqual([long, arabic]);
    expect(smsc.submits.map((s) => s.dataCoding)).toEqual([0, 0, 8]);
  });

  describe('long messages (SMPP_LONG_MESSAGE=udh, the default)', () => {
    it.each([
      ['GSM-7', 'Hello '.repeat(60), 3, 0],
      [
        'GSM-7 with extension characters across a part boundary',
        'a'.repeat(152) + '€[]{}^~\\|' + 'b'.repeat(150),
        3,
        0,
      ],
      ['Arabic (UCS-2)', 'رمز التحقق الخاص بك هو 1234. '.repeat(6), 3, 8],
      ['emoji (surrogate pairs)', '😀'.repeat(40), 2, 8],
    ])(
      '%s: one submit_sm per part with a concatenation UDH; the parts reassemble to the text; every part id',
      async (_name, text, total, dataCoding) => {
        const outcome = await adapter().send(message({ text }));
        expect(smsc.submits).toHaveLength(total);
        const ref = referenceHash('msg_sms_1') & 0xff;
        expect(smsc.submits.map((s) => s.concat)).toEqual(
          Array.from({ length: total }, (_, i) => ({ ref, total, seq: i + 1 })),
        );
        expect(
          smsc.submits.every(
            (s) => s.esmClass === 0x40 && s.dataCoding === dataCoding && !s.payload && s.clientRef === 'msg_sms_1',
          ),
        ).toBe(true);
        expect(smsc.reassembled()).toEqual([text]);
        const ids = smsc.submits.map((s) => s.messageId);
        expect(outcome).toEqual({ status: 'sent', providerMessageId: ids[0], providerMessageIds: ids });
      },
    );

    it('two long messages to one number keep their own references', async () => {
      const sut = adapter();
      const a = 'A'.repeat(200);
      const b = 'B'.repeat(200);
      await sut.send(message({ messageId: 'msg_a', text: a }));
      await sut.send(message({ messageId: 'msg_b', text: b }));
      expect(new Set(smsc.submits.map((s) => s.concat?.ref)).size).toBe(2);
      expect(smsc.reassembled()).toEqual([a, b]);
    });

    it("a later part refused fails the message with that part's verdict", async () => {
      const err = await providerError(adapter().send(message({ to: '+966501236666', text: 'x'.repeat(200) })));
      expect(err.kind).toBe('rate_limited');
      expect(smsc.submits.map((s) => s.concat?.seq)).toEqual([1, 2]);
    });
  });

  it('SMPP_LONG_MESSAGE=payload keeps the whole text in message_payload', async () => {
    const text = 'رمز التحقق '.repeat(20);
    const outcome = await adapter({ SMPP_LONG_MESSAGE: 'payload' }).send(message({ text }));
    expect(smsc.submits).toHaveLength(1);
    expect(smsc.submits[0]).toMatchObject({ payload: true, dataCoding: 8, esmClass: 0, concat: null, text });
    expect(outcome).toEqual({ status: 'sent', providerMessageId: 'smsc-1' });
  });

  it('ESME_RINVDSTADR is rejected PROVIDER_REJECTED', async () => {
    const outcome = await adapter().send(message({ to: '+966501231111' }));
    expect(outcome).toMatchObject({ status: 'rejected', code: 'PROVIDER_REJECTED' });
    expect(outcome.status === 'rejected' && outcome.message).toContain('0x0000000b');
  });

  it('ESME_RTHROTTLED is rate_limited', async () => {
    expect((await providerError(adapter().send(message({ to: '+966501232222' })))).kind).toBe('rate_limited');
  });

  it('ESME_RSYSERR is unavailable', async () => {
    expect((await providerError(adapter().send(message({ to: '+966501234444' })))).kind).toBe('unavailable');
  });

  it('an unanswered submit_sm times out as unavailable and the session stays usable', async () => {
    const sut = adapter(SHORT);
    const err = await providerError(sut.send(message({ to: '+966501233333' })));
    expect(err.kind).toBe('unavailable');
    expect(err.message).toMatch(/within 500 ms/);
    await expect(sut.send(message())).resolves.toMatchObject({ status: 'sent' });
    expect(smsc.binds).toBe(1);
  });

  it('keeps at most SMPP_WINDOW submissions outstanding', async () => {
    smsc.responseDelayMs = 60;
    const sut = adapter({ SMPP_WINDOW: '2' });
    const outcomes = await Promise.all(
      [1, 2, 3, 4, 5].map((i) => sut.send(message({ messageId: `msg_w${i}`, to: `+96650123400${i}` }))),
    );
    expect(outcomes.every((o) => o.status === 'sent')).toBe(true);
    expect(smsc.submits.map((s) => s.clientRef).sort()).toEqual(['msg_w1', 'msg_w2', 'msg_w3', 'msg_w4', 'msg_w5']);
    expect(smsc.maxOutstanding).toBe(2);
  });

  it('a send that cannot get a window slot in time is unavailable and never submitted later', async () => {
    const sut = adapter({ ...SHORT, SMPP_WINDOW: '1' });
    const stuck = providerError(sut.send(message({ to: '+966501233333' })));
    const waiting = await providerError(sut.send(message({ messageId: 'msg_late' })));
    expect(waiting.kind).toBe('unavailable');
    expect(waiting.message).toMatch(/window of 1|not attempted/);
    expect((await stuck).kind).toBe('unavailable');
    await expect(sut.send(message({ messageId: 'msg_after' }))).resolves.toMatchObject({ status: 'sent' });
    expect(smsc.submits.map((s) => s.clientRef)).toEqual(['msg_sms_1', 'msg_after']);
  });

  it('an unanswered bind is unavailable', async () => {
    smsc.silentBind = true;
    const err = await providerError(adapter(SHORT).send(message()));
    expect(err.kind).toBe('unavailable');
    expect(err.message).toMatch(/bind/);
    expect(smsc.submits).toHaveLength(0);
  });

  it('a refused bind (wrong password) is unavailable', async () => {
    const err = await providerError(adapter({ SMPP_PASSWORD: 'nope' }).send(message()));
    expect(err.kind).toBe('unavailable');
    expect(err.message).toMatch(/bind_transceiver_resp status 0x0000000d/);
  });

  it('no SMSC listening is unavailable', async () => {
    const err = await providerError(adapter({ SMPP_URL: `smpp://127.0.0.1:${await closedPort()}` }).send(message()));
    expect(err.kind).toBe('unavailable');
  });

  it('a session dropped mid-submit fails that send as unavailable, then reconnects by itself', async () => {
    const sut = adapter();
    await sut.send(message());
    expect((await providerError(sut.send(message({ to: '+966501235555' })))).kind).toBe('unavailable');
    await waitFor(async () => smsc.binds >= 2 && smsc.openSessions === 1, { what: 'background re-bind' });
    await expect(sut.send(message({ messageId: 'msg_sms_3' }))).resolves.toMatchObject({ status: 'sent' });
    expect(smsc.submits.at(-1)).toMatchObject({ clientRef: 'msg_sms_3', session: 2 });
  });

  it('reconnects after the SMSC drops every connection', async () => {
    const sut = adapter();
    await sut.send(message());
    smsc.dropAll();
    await waitFor(async () => smsc.binds >= 2, { what: 're-bind after drop' });
    await expect(sut.send(message({ messageId: 'msg_sms_4' }))).resolves.toMatchObject({ status: 'sent' });
  });

  it('unbinds on shutdown', async () => {
    const sut = adapter();
    await sut.send(message());
    expect(smsc.openSessions).toBe(1);
    await sut.onApplicationShutdown();
    await waitFor(async () => smsc.openSessions === 0, { what: 'session closed' });
  });

  it('validates settings only when selected, naming the variable', () => {
    expect(() => adapter({ SMPP_URL: '' })).toThrow(/SMPP_URL/);
    expect(() => adapter({ SMPP_URL: 'http://x:1' })).toThrow(/SMPP_URL/);
    expect(() => adapter({ SMPP_SYSTEM_ID: '' })).toThrow(/SMPP_SYSTEM_ID/);
    expect(() => adapter({ SMPP_PASSWORD: '' })).toThrow(/SMPP_PASSWORD/);
    expect(() => adapter({ PROVIDER_LOCAL_SMS: 'sandbox', SMPP_URL: '' })).not.toThrow();
  });
});
