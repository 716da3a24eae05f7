import { FakeClock } from '../common/fake-clock';
import { JobLease } from './job-lease';

describe(JobLease.name, () => {
  const job = { jobId: 'bulk_1', owner: 'rep_1', leaseMs: 20_000, marginMs: 15_000 };

  function lease(answer: () => Promise<boolean>) {
    const clock = new FakeClock({ start: 1_000_000 });
    const renewals: number[] = [];
    const sut = new JobLease(
      {
        renew: (_id, _owner, until) => {
          renewals.push(until);
          return answer();
        },
      },
      clock,
      job,
    );
    return { clock, renewals, sut };
  }

  it('keeps the lease a claim renewed without a statement while more than the margin is left', async () => {
    const { clock, renewals, sut } = lease(() => Promise.resolve(true));
    expect(sut.renewedUntil(clock.now())).toBe(clock.now() + 20_000);
    clock.advance(5_000);
    await expect(sut.keep()).resolves.toBe(true);
    expect(renewals).toEqual([]);
  });

  it('renews it once for the lanes that find it short together, and not again until it runs short', async () => {
    let release: (ok: boolean) => void = () => undefined;
    const { clock, renewals, sut } = lease(() => new Promise<boolean>((r) => (release = r)));
    sut.renewedUntil(clock.now());
    clock.advance(5_001);
    const lanes = [sut.keep(), sut.keep(), sut.keep()];
    release(true);
    await expect(Promise.all(lanes)).resolves.toEqual([true, true, true]);
    expect(renewals).toEqual([clock.now() + 20_000]);
    clock.advance(5_000);
    await expect(sut.keep()).resolves.toBe(true);
    expect(renewals).toHaveLength(1);
  });

  it('answers false when the renewal finds the job another replica’s, and tries again on the next call', async () => {
    const { clock, renewals, sut } = lease(() => Promise.resolve(false));
    sut.renewedUntil(clock.now());
    clock.advance(30_000);
    await expect(sut.keep()).resolves.toBe(false);
    await expect(sut.keep()).resolves.toBe(false);
    expect(renewals).toHaveLength(2);
  });
});
