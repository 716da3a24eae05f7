import { LedgerBatch, LedgerBatchConflict } from '../accounts/ledger-batch';
import { MessagePayments, WindowPayItem } from './message-payments';
import { pipelineHarness, PipelineHarness, smsTo } from './testing/pipeline-harness';
import { accountIdOf } from '../common/account-id';

describe(MessagePayments.name, () => {
  let h: PipelineHarness;
  let n = 0;
  beforeAll(async () => {
    h = await pipelineHarness({ lookup: true });
  });
  afterAll(() => h.close());
  afterEach(() => jest.restoreAllMocks());

  const items = (count: number): WindowPayItem[] =>
    Array.from({ length: count }, (_, i) => {
      const id = `msg_pay_${++n}`;
      return {
        id,
        msg: smsTo(`+96650100${String(i).padStart(4, '0')}`),
        origin: { bulkJobId: 'job_pay', rowIndex: i },
      };
    });
  const recorded = async (acc: string, its: WindowPayItem[]) =>
    (await Promise.all(its.map((it) => h.message(accountIdOf(acc), it.id)))).map((m) => m?.status ?? 'none');
  const across = () => jest.spyOn(LedgerBatch.prototype, 'debitAcross');

  it('pays a lone window as a batch of one: as many as the wallet covers, the rest unpaid and unrecorded', async () => {
    const acc = await h.account({ wallet: 10 });
    const its = items(3);
    const debits = across();
    const got = await h.payments.payWindow(acc, its);
    expect(got.map((f) => f?.source ?? null)).toEqual(['wallet', 'wallet', null]);
    expect(debits).toHaveBeenCalledTimes(1);
    expect(await recorded(acc, its)).toEqual(['queued', 'queued', 'none']);
    expect(await h.wallet(acc)).toBe(0);
  });

  it('refuses a lone window of an inactive subscription with SUBSCRIPTION_INACTIVE, taking and recording nothing', async () => {
    const acc = await h.account({ wallet: 100, active: false });
    const its = items(2);
    await expect(h.payments.payWindow(acc, its)).rejects.toMatchObject({ code: 'SUBSCRIPTION_INACTIVE' });
    await expect(h.payments.payWindow(accountIdOf('acc_missing'), items(1))).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(await h.wallet(acc)).toBe(100);
    expect(await recorded(acc, its)).toEqual(['none', 'none']);
  });

  it('in one batch, refuses the inactive account its window and pays the others', async () => {
    const off = await h.account({ wallet: 100, active: false });
    const on = await h.account({ wallet: 100 });
    const [offItems, onItems] = [items(2), items(2)];
    const debits = across();
    const [refused, paid] = await Promise.allSettled([
      h.payments.payWindow(off, offItems),
      h.payments.payWindow(on, onItems),
    ]);
    expect(refused).toMatchObject({ status: 'rejected', reason: { code: 'SUBSCRIPTION_INACTIVE' } });
    expect(paid).toMatchObject({ status: 'fulfilled', value: [{ source: 'wallet' }, { source: 'wallet' }] });
    // One batch answered both: the refusal is not written again on its own.
    expect(debits).toHaveBeenCalledTimes(1);
    expect(await h.wallet(off)).toBe(100);
    expect(await h.wallet(on)).toBe(90);
    expect(await recorded(off, offItems)).toEqual(['none', 'none']);
    expect(await recorded(on, onItems)).toEqual(['queued', 'queued']);
  });

  it('writes the batch again without the account that lost a conflict, then that account alone', async () => {
    const [a, b, c] = [await h.account({ wallet: 100 }), await h.account({ wallet: 100 }), await h.account()];
    const debits = across().mockRejectedValueOnce(new LedgerBatchConflict([b], 'wallet: 2 of 3 accounts debited'));
    const [aItems, bItems, cItems] = [items(1), items(1), items(1)];
    await Promise.all(
      [[a, aItems] as const, [b, bItems] as const, [c, cItems] as const].map(([acc, its]) =>
        h.payments.payWindow(acc, its),
      ),
    );
    expect(debits.mock.calls.map(([payments]) => payments.map((p) => p.accountId))).toEqual([[a, b, c], [a, c], [b]]);
    for (const [acc, its] of [
      [a, aItems],
      [b, bItems],
      [c, cItems],
    ] as const)
      expect(await recorded(acc, its)).toEqual(['queued']);
    expect([await h.wallet(a), await h.wallet(b)]).toEqual([95, 95]);
  });

  it('joins the unit its caller holds open (written alone and at once): undone with it', async () => {
    const acc = await h.account({ wallet: 100 });
    const its = items(2);
    const failure = new Error('the caller gave up');
    await expect(
      h.uow.transaction(async () => {
        expect((await h.payments.payWindow(acc, its)).map((f) => f?.source)).toEqual(['wallet', 'wallet']);
        expect(await recorded(acc, its)).toEqual(['queued', 'queued']);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await h.wallet(acc)).toBe(100);
    expect(await recorded(acc, its)).toEqual(['none', 'none']);
  });
});
