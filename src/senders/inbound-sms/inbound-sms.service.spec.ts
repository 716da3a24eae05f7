import type { DomainEvent, EventSink } from '../../messaging/events/event-sink';
import type { InboundKeywords, InboundText } from '../../messaging/inbound/inbound-keywords';
import type { Tx, UnitOfWork } from '../../database/unit-of-work';
import type { InboundSmsRecord, InboundSmsRepository } from './inbound-sms.repository';
import { destinationKeys, InboundSmsService } from './inbound-sms.service';
import { accountIdOf } from '../../common/account-id';

describe(InboundSmsService.name, () => {
  const tx = {} as Tx;
  let owners: { senderId: string; accountId: string }[];
  let stored: InboundSmsRecord[];
  let events: DomainEvent[];
  let asked: string[][];
  let keywordTexts: InboundText[];
  /** Approved senders by account, for acceptForAccount. */
  let own: Map<string, { senderId: string; accountId: string; name: string; isDefault: boolean }[]>;
  let sut: InboundSmsService;

  beforeEach(() => {
    owners = [];
    stored = [];
    events = [];
    asked = [];
    keywordTexts = [];
    own = new Map();
    const uow = { transaction: <T>(work: (t: Tx) => Promise<T>) => work(tx) } as unknown as UnitOfWork;
    const repo = {
      approvedSendersAnyByName: async (_tx: Tx, keys: string[]) => (asked.push(keys), owners),
      insert: async (_tx: Tx, r: InboundSmsRecord) => void stored.push(r),
      latestKeyOfPair: async () => stored.at(-1)?.dedupeKey,
      approvedSenderOf: async (_tx: Tx, accountId: string, key: string | null) =>
        (own.get(accountId) ?? []).find((s) => (key === null ? s.isDefault : s.name.toLowerCase() === key)) ?? null,
    } as unknown as InboundSmsRepository;
    const keywords: InboundKeywords = { handle: async (t) => (keywordTexts.push(t), { keyword: null }) };
    const sink: EventSink = { record: async (_tx, e) => void events.push(...e) };
    sut = new InboundSmsService(uow, repo, sink, keywords);
  });

  const sms = {
    from: '+966501234567',
    to: 'MyShop',
    text: 'STOP',
    providerMessageId: null,
    at: Date.UTC(2026, 10, 26),
  };

  it('stores the SMS for the one account whose approved sender it was sent to and emits sms.received', async () => {
    owners = [{ senderId: 'snd_1', accountId: 'acc_1' }];
    await sut.accept(sms);
    expect(asked).toEqual([['myshop']]);
    expect(stored).toEqual([
      {
        id: expect.stringMatching(/^isms_/),
        accountId: 'acc_1',
        senderId: 'snd_1',
        fromAddress: '+966501234567',
        toAddress: 'MyShop',
        text: 'STOP',
        providerMessageId: null,
        receivedAt: sms.at,
        partsTotal: 1,
        partsReceived: 1,
        dedupeKey: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    ]);
    expect(keywordTexts).toEqual([
      {
        accountId: 'acc_1',
        channel: 'local_sms',
        from: '+966501234567',
        to: 'MyShop',
        text: 'STOP',
        inboundMessageId: stored[0].id,
        at: sms.at,
      },
    ]);
    expect(events).toEqual([
      {
        accountId: 'acc_1',
        type: 'sms.received',
        at: sms.at,
        data: {
          id: stored[0].id,
          from: '+966501234567',
          to: 'MyShop',
          text: 'STOP',
          senderId: 'snd_1',
          receivedAt: '2026-11-26T00:00:00.000Z',
        },
      },
    ]);
  });

  it('keeps the SMS without an account and emits nothing when no account, or several, match', async () => {
    await sut.accept(sms);
    owners = [
      { senderId: 'snd_1', accountId: 'acc_1' },
      { senderId: 'snd_2', accountId: 'acc_2' },
    ];
    await sut.accept({ ...sms, text: 'STOP!' });
    expect(stored.map((r) => [r.accountId, r.senderId])).toEqual([
      [null, null],
      [null, null],
    ]);
    expect(events).toEqual([]);
    expect(keywordTexts).toEqual([]);
  });

  it('stores a redelivery of the latest SMS of the pair once, but the same text after another one again', async () => {
    owners = [{ senderId: 'snd_1', accountId: 'acc_1' }];
    await sut.accept(sms);
    await sut.accept({ ...sms, at: sms.at + 60_000 });
    await sut.accept({ ...sms, text: 'START', at: sms.at + 120_000 });
    await sut.accept({ ...sms, at: sms.at + 180_000 });
    expect(stored.map((r) => r.text)).toEqual(['STOP', 'START', 'STOP']);
    expect(keywordTexts).toHaveLength(3);
  });

  describe('acceptForAccount (test-mode controls)', () => {
    beforeEach(() => {
      // A live account and its test mode both hold MyShop: the name alone reaches neither.
      owners = [
        { senderId: 'snd_live', accountId: 'acc_1' },
        { senderId: 'snd_test', accountId: 'test_acc_1' },
      ];
      own.set('test_acc_1', [
        { senderId: 'snd_test', accountId: 'test_acc_1', name: 'MyShop', isDefault: false },
        { senderId: 'snd_dflt', accountId: 'test_acc_1', name: 'Dflt', isDefault: true },
      ]);
    });

    it('stores the SMS for that account, runs keywords and emits sms.received, whoever else holds the name', async () => {
      const item = await sut.acceptForAccount(accountIdOf('test_acc_1'), {
        from: '+966501234567',
        to: '+myshop',
        text: 'STOP',
        at: sms.at,
      });
      expect(asked).toEqual([]);
      expect(stored).toEqual([
        expect.objectContaining({
          accountId: 'test_acc_1',
          senderId: 'snd_test',
          toAddress: '+myshop',
          dedupeKey: null,
        }),
      ]);
      expect(keywordTexts).toEqual([
        expect.objectContaining({ accountId: 'test_acc_1', channel: 'local_sms', text: 'STOP' }),
      ]);
      expect(events.map((e) => [e.accountId, e.type])).toEqual([['test_acc_1', 'sms.received']]);
      expect(item).toEqual({
        id: stored[0].id,
        from: '+966501234567',
        to: '+myshop',
        text: 'STOP',
        senderId: 'snd_test',
        receivedAt: '2026-11-26T00:00:00.000Z',
        partsTotal: 1,
        partsReceived: 1,
        complete: true,
        parts: [],
        livemode: false,
      });
    });

    it('goes to the default sender without `to`; the same text twice is two SMS', async () => {
      await sut.acceptForAccount(accountIdOf('test_acc_1'), {
        from: '+966501234567',
        to: null,
        text: 'STOP',
        at: sms.at,
      });
      await sut.acceptForAccount(accountIdOf('test_acc_1'), {
        from: '+966501234567',
        to: null,
        text: 'STOP',
        at: sms.at + 1,
      });
      expect(stored.map((r) => [r.senderId, r.toAddress])).toEqual([
        ['snd_dflt', 'Dflt'],
        ['snd_dflt', 'Dflt'],
      ]);
    });

    it('refuses a sender the account has not approved (SENDER_NOT_APPROVED), storing nothing', async () => {
      for (const [accountId, to] of [
        ['test_acc_1', 'Other'],
        ['test_acc_1', '+966500000009'],
        ['test_acc_2', null],
      ] as const)
        await expect(
          sut.acceptForAccount(accountIdOf(accountId), { from: '+966501234567', to, text: 'hi', at: sms.at }),
        ).rejects.toMatchObject({
          code: 'SENDER_NOT_APPROVED',
        });
      expect(stored).toEqual([]);
    });
  });
});

describe(destinationKeys.name, () => {
  it('lower-cases, drops a leading + and skips what cannot be a sender name', () => {
    expect(destinationKeys('+MyShop')).toEqual(['myshop']);
    expect(destinationKeys('4567')).toEqual(['4567']);
    expect(destinationKeys('+966500000009')).toEqual([]);
    expect(destinationKeys('')).toEqual([]);
  });
});
