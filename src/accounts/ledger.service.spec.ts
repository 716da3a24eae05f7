import { Clock } from '../common/clock';
import { ChannelName } from '../config/app-config';
import { KeyCallerCache } from './key-caller-cache';
import { LedgerBatch } from './ledger-batch';
import { LedgerService } from './ledger.service';
import { LedgerDatabase, ledgerDatabase } from './testing/ledger-database';

describe(LedgerService.name, () => {
  let db: LedgerDatabase;
  let sut: LedgerService;
  let ds: LedgerDatabase['ds'];
  let account: LedgerDatabase['account'];
  let balances: LedgerDatabase['balances'];

  beforeAll(async () => {
    db = await ledgerDatabase('acc_test');
    ({ ds, account, balances } = db);
    const callers = new KeyCallerCache(db.config, new Clock());
    sut = new LedgerService(db.uow, db.config, new LedgerBatch(db.uow, db.config, callers), callers);
  });
  afterAll(() => db.close());

  it('pays from free messages, then quota, then wallet, then refuses with 402', async () => {
    const id = await account({ wallet: 5, free: 1, quota: 1 });
    expect(await sut.debit(id, 'local_sms')).toEqual({ source: 'free', amount: 0, units: 1 });
    expect(await sut.debit(id, 'local_sms')).toEqual({ source: 'quota', amount: 0, units: 1 });
    expect(await sut.debit(id, 'local_sms')).toEqual({ source: 'wallet', amount: 5, units: 1 });
    await expect(sut.debit(id, 'local_sms')).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    expect(await balances(id)).toEqual({ wallet: 0, free: 0, used: 1 });
  });

  it('refuses an inactive subscription with SUBSCRIPTION_INACTIVE and takes nothing', async () => {
    const id = await account({ wallet: 100, active: false });
    await expect(sut.debit(id, 'local_sms')).rejects.toMatchObject({ code: 'SUBSCRIPTION_INACTIVE' });
    await expect(sut.debitMany(id, 'local_sms', 2, { allOrNothing: false })).rejects.toMatchObject({
      code: 'SUBSCRIPTION_INACTIVE',
    });
    expect((await balances(id)).wallet).toBe(100);
  });

  it('refund returns each payment to its source', async () => {
    const id = await account({ wallet: 10, free: 1, quota: 1 });
    const paid = [await sut.debit(id, 'local_sms'), await sut.debit(id, 'local_sms'), await sut.debit(id, 'local_sms')];
    await sut.refundMany(id, paid);
    expect(await balances(id)).toEqual({ wallet: 10, free: 1, used: 0 });
  });

  it('debitMany: all-or-nothing refuses a batch it cannot fully pay; partial mode pays what it can', async () => {
    const id = await account({ wallet: 12, free: 2 });
    await expect(sut.debitMany(id, 'local_sms', 5, { allOrNothing: true })).rejects.toMatchObject({
      code: 'INSUFFICIENT_BALANCE',
    });
    expect(await balances(id)).toEqual({ wallet: 12, free: 2, used: 0 });
    const got = await sut.debitMany(id, 'local_sms', 5, { allOrNothing: false });
    expect(got.map((f) => f.source)).toEqual(['free', 'free', 'wallet', 'wallet']);
    expect(await balances(id)).toEqual({ wallet: 2, free: 0, used: 0 });
  });

  it('debitMany without a transaction takes nothing when a later UPDATE fails', async () => {
    const id = await account({ wallet: 100, free: 1, quota: 1 });
    // A real database error on the third UPDATE (wallet), after free messages and quota were taken.
    await ds.query(
      `CREATE TRIGGER wallet_down BEFORE UPDATE OF wallet_balance ON accounts WHEN NEW.id = '${id}' BEGIN SELECT RAISE(ABORT, 'wallet unavailable'); END`,
    );
    try {
      for (const allOrNothing of [false, true]) {
        await expect(sut.debitMany(id, 'local_sms', 3, { allOrNothing })).rejects.toThrow(/wallet unavailable/);
        expect(await balances(id)).toEqual({ wallet: 100, free: 1, used: 0 });
      }
    } finally {
      await ds.query('DROP TRIGGER wallet_down');
    }
    expect(await sut.debitMany(id, 'local_sms', 3, { allOrNothing: true })).toHaveLength(3);
  });

  it('canPay reflects every source', async () => {
    expect(await sut.canPay(await account({ wallet: 4 }), 'local_sms')).toBe(false);
    expect(await sut.canPay(await account({ wallet: 5 }), 'local_sms')).toBe(true);
    expect(await sut.canPay(await account({ free: 1 }), 'local_sms')).toBe(true);
    expect(await sut.canPay(await account({ quota: 2, used: 1 }), 'local_sms')).toBe(true);
    expect(await sut.canPay('acc_missing', 'local_sms')).toBe(false);
  });

  it('never goes below zero under concurrency (50 debits, balances for exactly 11)', async () => {
    const id = await account({ wallet: 30, free: 2, quota: 3, used: 0 });
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => sut.debit(id, 'local_sms')));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(11);
    expect(await balances(id)).toEqual({ wallet: 0, free: 0, used: 3 });
  });

  it('estimate pays on paper as debit pays for real: same order of sources, same prices', async () => {
    const id = await account({ wallet: 23, free: 2, quota: 3, used: 1 });
    const channels: ChannelName[] = [
      'email',
      'local_sms',
      'chatapp',
      'local_sms',
      'email',
      'chatapp',
      'local_sms',
      'chatapp_web',
      'email',
      'local_sms',
      'email',
      'email',
    ];
    const estimate = await sut.estimate(id);
    for (const channel of channels) {
      const real = await sut.debit(id, channel).then(
        (f) => f.source,
        () => null,
      );
      expect(estimate.pay(sut.price(channel))).toBe(real);
    }
    // The last sms could not be paid (1 left); the two emails after it could.
    expect(estimate.result()).toEqual({ free: 2, quota: 2, wallet: 22 });
    expect(await balances(id)).toEqual({ wallet: 1, free: 0, used: 3 });
  });

  it('pays a multi-part message whole from the first source that covers all its parts, and refunds every part', async () => {
    const id = await account({ wallet: 30, free: 2, quota: 4, used: 1 });
    // 3 parts: 2 free messages cannot cover them, the quota (3 left) can.
    const a = await sut.debit(id, 'local_sms', 3);
    expect(a).toEqual({ source: 'quota', amount: 0, units: 3 });
    const b = await sut.debit(id, 'local_sms', 2);
    expect(b).toEqual({ source: 'free', amount: 0, units: 2 });
    const c = await sut.debit(id, 'local_sms', 4);
    expect(c).toEqual({ source: 'wallet', amount: 20, units: 4 });
    await expect(sut.debit(id, 'local_sms', 3)).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    expect(await balances(id)).toEqual({ wallet: 10, free: 0, used: 4 });
    await sut.refundMany(id, [a, b, c]);
    expect(await balances(id)).toEqual({ wallet: 30, free: 2, used: 1 });
  });

  it('debitMany counts messages of several parts: all-or-nothing and partial', async () => {
    const id = await account({ wallet: 30, free: 3 });
    // 4 two-part messages need 8 units: 1 from free (3 free cover one), 3 x 10 from the wallet.
    await expect(sut.debitMany(id, 'local_sms', 5, { allOrNothing: true, units: 2 })).rejects.toMatchObject({
      code: 'INSUFFICIENT_BALANCE',
    });
    expect(await balances(id)).toEqual({ wallet: 30, free: 3, used: 0 });
    const got = await sut.debitMany(id, 'local_sms', 5, { allOrNothing: false, units: 2 });
    expect(got).toEqual([
      { source: 'free', amount: 0, units: 2 },
      { source: 'wallet', amount: 10, units: 2 },
      { source: 'wallet', amount: 10, units: 2 },
      { source: 'wallet', amount: 10, units: 2 },
    ]);
    expect(await balances(id)).toEqual({ wallet: 0, free: 1, used: 0 });
    expect(await sut.canPay(id, 'local_sms', 1)).toBe(true);
    expect(await sut.canPay(id, 'local_sms', 2)).toBe(false);
  });

  it('estimate pays multi-part messages as debit does', async () => {
    const id = await account({ wallet: 27, free: 3, quota: 2 });
    const estimate = await sut.estimate(id);
    for (const units of [2, 3, 2, 1, 4, 1, 2]) {
      const real = await sut.debit(id, 'local_sms', units).then(
        (f) => f.source,
        () => null,
      );
      expect(estimate.pay(sut.price('local_sms') * units, units)).toBe(real);
    }
    expect(estimate.result()).toEqual({ free: 3, quota: 2, wallet: 20 });
  });
});
