import { LedgerBatch, LedgerBatchConflict } from './ledger-batch';
import { LedgerService } from './ledger.service';
import { LedgerDatabase, ledgerDatabase } from './testing/ledger-database';

describe(LedgerBatch.name, () => {
  let db: LedgerDatabase;
  let price: number;
  let uow: LedgerDatabase['uow'];
  let sut: LedgerBatch;
  let single: LedgerService;
  let account: LedgerDatabase['account'];
  let balances: LedgerDatabase['balances'];

  beforeAll(async () => {
    db = await ledgerDatabase('acc_batch');
    ({ uow, account, balances } = db);
    price = db.config.billing.prices.local_sms;
    sut = new LedgerBatch(uow, db.config);
    single = new LedgerService(uow, db.config);
  });
  afterAll(() => db.close());

  const sms = (count: number, units = 1) => ({ channel: 'local_sms' as const, units, count });

  it('pays each account as debitMany would: in order, free then quota then wallet, as many as the balance covers', async () => {
    const a = await account({ free: 1, quota: 1, wallet: 2 * price });
    const b = await account({ wallet: 3 * price });
    const twin = await account({ free: 1, quota: 1, wallet: 2 * price });
    const got = await uow.transaction(() =>
      sut.debitAcross([
        { accountId: a, wants: [sms(6)] },
        { accountId: b, wants: [sms(2)] },
        { accountId: b, wants: [sms(2)] },
      ]),
    );
    const alone = await single.debitMany(twin, 'local_sms', 6, { allOrNothing: false });
    expect(got[0]?.[0]).toEqual(alone);
    expect(got[0]?.[0].map((f) => f.source)).toEqual(['free', 'quota', 'wallet', 'wallet']);
    // Two windows of one account share its balance: the second gets what the first left.
    expect(got[1]?.[0]).toHaveLength(2);
    expect(got[2]?.[0]).toHaveLength(1);
    expect(await balances(a)).toEqual({ wallet: 0, free: 0, used: 1 });
    expect(await balances(a)).toEqual(await balances(twin));
    expect(await balances(b)).toEqual({ wallet: 0, free: 0, used: 0 });
  });

  it('pays a multi-part message whole from one source and skips a source that cannot cover it', async () => {
    const a = await account({ free: 3, wallet: 4 * price });
    const [got] = await uow.transaction(() => sut.debitAcross([{ accountId: a, wants: [sms(3, 2)] }]));
    expect(got?.[0]).toEqual([
      { source: 'free', amount: 0, units: 2 },
      { source: 'wallet', amount: 2 * price, units: 2 },
      { source: 'wallet', amount: 2 * price, units: 2 },
    ]);
    expect(await balances(a)).toEqual({ wallet: 0, free: 1, used: 0 });
  });

  it('leaves out an inactive or unknown account and takes nothing from it', async () => {
    const off = await account({ wallet: 10 * price, active: false });
    const on = await account({ wallet: 10 * price });
    const got = await uow.transaction(() =>
      sut.debitAcross([
        { accountId: off, wants: [sms(1)] },
        { accountId: 'acc_missing', wants: [sms(1)] },
        { accountId: on, wants: [sms(1)] },
      ]),
    );
    expect(got[0]).toBeNull();
    expect(got[1]).toBeNull();
    expect(got[2]?.[0]).toHaveLength(1);
    expect((await balances(off)).wallet).toBe(10 * price);
  });

  it('undoes the whole unit when a balance changed between its read and its UPDATE (never below zero)', async () => {
    const a = await account({ wallet: 2 * price });
    const b = await account({ wallet: 2 * price });
    const read = uow.rows.bind(uow);
    // Another payment lands right after the batch read the balances (here in the same unit, so it is undone with it).
    const spy = jest.spyOn(uow, 'rows').mockImplementationOnce(async (stmt) => {
      const rows = await read(stmt);
      await uow.run({ sql: 'UPDATE accounts SET wallet_balance = 0 WHERE id = ?', params: [b] });
      return rows;
    });
    await expect(
      uow.transaction(() =>
        sut.debitAcross([
          { accountId: a, wants: [sms(2)] },
          { accountId: b, wants: [sms(2)] },
        ]),
      ),
    ).rejects.toBeInstanceOf(LedgerBatchConflict);
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
    // Nothing was taken from either: b's guard refused, and a's debit was rolled back with the unit.
    expect(await balances(a)).toEqual({ wallet: 2 * price, free: 0, used: 0 });
    expect(await balances(b)).toEqual({ wallet: 2 * price, free: 0, used: 0 });
  });
});
