import { SchedulerRegistry } from '@nestjs/schedule';
import { SinglePeriodicJob } from './single-periodic-job';

describe(SinglePeriodicJob.name, () => {
  /** A run that lasts until the test ends it. */
  function gatedJob() {
    let runs = 0;
    let release: () => void = () => undefined;
    const sut = new SinglePeriodicJob('test-job', async () => {
      runs++;
      await new Promise<void>((r) => (release = r));
      return runs;
    });
    return { sut, runs: () => runs, release: () => release() };
  }

  it('skips a tick while a run is going', async () => {
    const { sut, runs, release } = gatedJob();
    const first = sut.tick();
    expect(await sut.tick()).toBeUndefined();
    release();
    expect(await first).toBe(1);
    expect(runs()).toBe(1);
  });

  it('halt: the timer is removed and no run starts again; idle waits for the run in progress', async () => {
    const registry = new SchedulerRegistry();
    const { sut, runs, release } = gatedJob();
    sut.start(registry, 60_000);
    expect(registry.doesExist('interval', 'test-job')).toBe(true);
    const inFlight = sut.tick();
    sut.halt();
    expect(sut.halted).toBe(true);
    expect(registry.doesExist('interval', 'test-job')).toBe(false);

    let idle = false;
    const waiting = sut.idle().then(() => (idle = true));
    await new Promise((r) => setImmediate(r));
    expect(idle).toBe(false);
    release();
    await waiting;
    expect(await inFlight).toBe(1);
    expect(await sut.tick()).toBeUndefined();
    expect(runs()).toBe(1);
  });
});
