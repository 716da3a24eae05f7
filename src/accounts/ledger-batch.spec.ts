import { Clock } from '../common/clock';
import { ApiError } from '../common/errors';
import { KeyCallerCache } from './key-caller-cache';
import type { Funding } from './funding';
import { AccountDebit, LedgerBatch, LedgerBatchConflict } from './ledger-batch';
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
    const callers = new KeyCallerCache(db.config, new Clock());
    sut = new LedgerBatch(uow, db.config, callers);
    single = new LedgerService(uow, db.config, sut, callers);
  });
  afterAll(() => db.close());

  const sms = (count: number, units = 1) => ({ channel: 'local_sms' as const, units, count });
  /** A payment's fundings per want (fails the test on a refusal). */
  const paid = (d: AccountDebit | undefined): Funding[][] => {
    if (!Array.isArray(d)) throw new Error(`refused: ${String(d?.message)}`);
    return d;
  };
  const code = (d: AccountDebit | undefined) => (d instanceof ApiError ? d.code : 'paid');

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
    expect(paid(got[0])[0]).toEqual(alone);
    expect(paid(got[0])[0].map((f) => f.source)).toEqual(['free', 'quota', 'wallet', 'wallet']);
    // Two windows of one account share its balance: the second gets what the first left.
    expect(paid(got[1])[0]).toHaveLength(2);
    expect(paid(got[2])[0]).toHaveLength(1);
    expect(await balances(a)).toEqual({ wallet: 0, free: 0, used: 1 });
    expect(await balances(a)).toEqual(await balances(twin));
    expect(await balances(b)).toEqual({ wallet: 0, free: 0, used: 0 });
  });

  it('pays a multi-part message whole from one source and skips a source that cannot cover it', async () => {
    const a = await account({ free: 3, wallet: 4 * price });
    const [got] = await uow.transaction(() => sut.debitAcross([{ accountId: a, wants: [sms(3, 2)] }]));
    expect(paid(got)[0]).toEqual([
      { source: 'free', amount: 0, units: 2 },
      { source: 'wallet', amount: 2 * price, units: 2 },
      { source: 'wallet', amount: 2 * price, units: 2 },
    ]);
    expect(await balances(a)).toEqual({ wallet: 0, free: 1, used: 0 });
  });

  it('refuses an inactive or unknown account as the single debit does, takes nothing from it, and pays the others', async () => {
    const off = await account({ wallet: 10 * price, active: false });
    const on = await account({ wallet: 10 * price });
    const got = await uow.transaction(() =>
      sut.debitAcross([
        { accountId: off, wants: [sms(1)] },
        { accountId: 'acc_missing', wants: [sms(1)] },
        { accountId: on, wants: [sms(1)] },
      ]),
    );
    expect(got.map(code)).toEqual(['SUBSCRIPTION_INACTIVE', 'NOT_FOUND', 'paid']);
    const alone = await single.debit(off, 'local_sms').catch((err: ApiError) => err);
    expect(got[0]).toEqual(alone);
    expect(paid(got[2])[0]).toHaveLength(1);
    expect((await balances(off)).wallet).toBe(10 * price);
    expect((await balances(on)).wallet).toBe(9 * price);
  });

  it('all-or-nothing: refuses a payment it cannot pay in full (nothing taken for it) and pays the others', async () => {
    const poor = await account({ free: 1, wallet: price });
    const rich = await account({ wallet: 5 * price });
    const got = await sut.debitAcross(
      [
        { accountId: poor, wants: [sms(1), sms(2)] },
        { accountId: rich, wants: [sms(3)] },
      ],
      { allOrNothing: true },
    );
    expect(got.map(code)).toEqual(['INSUFFICIENT_BALANCE', 'paid']);
    expect((got[0] as ApiError).message).toMatch(/2 message\(s\) on local_sms/);
    expect(await balances(poor)).toEqual({ wallet: price, free: 1, used: 0 });
    expect(await balances(rich)).toEqual({ wallet: 2 * price, free: 0, used: 0 });
  });

  it('runs in a unit of its own outside one: a failed UPDATE leaves nothing taken', async () => {
    const a = await account({ free: 1, wallet: 3 * price });
    const exec = uow.exec.bind(uow);
    const spy = jest.spyOn(uow, 'exec').mockImplementation(async (stmt) => {
      if (stmt.sql.includes('wallet_balance = wallet_balance -')) throw new Error('wallet unavailable');
      return exec(stmt);
    });
    try {
      await expect(sut.debitAcross([{ accountId: a, wants: [sms(3)] }])).rejects.toThrow('wallet unavailable');
    } finally {
      spy.mockRestore();
    }
    expect(await balances(a)).toEqual({ wallet: 3 * price, free: 1, used: 0 });
  });

  it('undoes the whole unit if a balance changed between its read and its UPDATE (the locking read prevents it; the guards stay)', async () => {
    const a = await account({ wallet: 2 * price });
    const b = await account({ wallet: 2 * price });
    const read = uow.read.bind(uow);
    // Another payment lands right after the batch read the balances (here in the same unit, so it is undone with it).
    const spy = jest.spyOn(uow, 'read').mockImplementationOnce(async (q) => {
      const rows = await read(q);
      await uow.run({ sql: 'UPDATE accounts SET wallet_balance = 0 WHERE id = ?', params: [b] });
      return rows;
    });
    const err = await uow
      .transaction(() =>
        sut.debitAcross([
          { accountId: a, wants: [sms(2)] },
          { accountId: b, wants: [sms(2)] },
        ]),
      )
      .catch((e: unknown) => e);
    // The accounts of the UPDATE that fell short, for the caller to write its batch again without them.
    expect(err).toBeInstanceOf(LedgerBatchConflict);
    expect((err as LedgerBatchConflict).accountIds).toEqual([a, b]);
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
    // Nothing was taken from either: b's guard refused, and a's debit was rolled back with the unit.
    expect(await balances(a)).toEqual({ wallet: 2 * price, free: 0, used: 0 });
    expect(await balances(b)).toEqual({ wallet: 2 * price, free: 0, used: 0 });
  });
});
