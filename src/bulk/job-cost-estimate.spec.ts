import { PaymentEstimate } from '../accounts/payment-estimate';
import { JobCostEstimate } from './job-cost-estimate';

const PRICE: Record<string, number> = { local_sms: 5, email: 1 };

function cost(
  channels: string[],
  mps: number,
  balance: { freeMessages?: number; quotaLeft?: number; wallet?: number },
) {
  const sut = new JobCostEstimate();
  for (const c of channels) sut.add(c, PRICE[c]);
  return sut.cost(new PaymentEstimate({ freeMessages: 0, quotaLeft: 0, wallet: 0, ...balance }), mps);
}

describe(JobCostEstimate.name, () => {
  const mixed = ['local_sms', 'email', 'local_sms', 'email', 'local_sms', 'email', 'local_sms'];

  it('in one window each channel pays at once, channels in order of first appearance', () => {
    // The four sms take the free messages and the quota; the emails are left to the wallet.
    expect(cost(mixed, 10, { freeMessages: 2, quotaLeft: 2, wallet: 1000 })).toEqual({
      free: 2,
      quota: 2,
      wallet: 3,
      unpaid: 0,
    });
  });

  it('one row per window pays in row order', () => {
    expect(cost(mixed, 1, { freeMessages: 2, quotaLeft: 2, wallet: 1000 })).toEqual({
      free: 2,
      quota: 2,
      wallet: 11,
      unpaid: 0,
    });
  });

  it('a cheaper channel later in the same window is still paid; the windows after an unpaid message are not', () => {
    expect(cost(['local_sms', 'local_sms', 'email', 'email', 'email'], 3, { wallet: 6 })).toEqual({
      free: 0,
      quota: 0,
      wallet: 6,
      unpaid: 3,
    });
  });

  it('nothing payable: every row unpaid', () => {
    expect(cost(mixed, 2, {})).toEqual({ free: 0, quota: 0, wallet: 0, unpaid: 7 });
  });

  it('grows past its first buffer', () => {
    expect(
      cost(
        Array.from({ length: 10_000 }, () => 'email'),
        10,
        { wallet: 9_999 },
      ),
    ).toEqual({ free: 0, quota: 0, wallet: 9_999, unpaid: 1 });
  });

  it('an SMS of several parts is paid whole from one source, groups per channel and number of parts', () => {
    const sut = new JobCostEstimate();
    // Row order: 2-part sms, 1-part sms, 2-part sms; one window: the 2-part group pays first.
    sut.add('local_sms', 10, 2);
    sut.add('local_sms', 5, 1);
    sut.add('local_sms', 10, 2);
    // 3 free: the first 2-part takes 2, the second cannot (1 left) and goes to the wallet; the 1-part takes the last free.
    expect(sut.cost(new PaymentEstimate({ freeMessages: 3, quotaLeft: 0, wallet: 15 }), 10)).toEqual({
      free: 3,
      quota: 0,
      wallet: 10,
      unpaid: 0,
    });
  });
});
