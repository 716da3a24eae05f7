import { FakeClock } from './fake-clock';

describe(FakeClock.name, () => {
  it('wakes sleepers only when time is advanced past their wake-up, earliest first', async () => {
    const clock = new FakeClock({ start: 1000 });
    const woke: string[] = [];
    const a = clock.sleep(300).then(() => woke.push(`a@${clock.now()}`));
    const b = clock.sleep(100).then(() => woke.push(`b@${clock.now()}`));
    await new Promise((r) => setImmediate(r));
    expect(woke).toEqual([]);
    clock.advance(99);
    await new Promise((r) => setImmediate(r));
    expect(woke).toEqual([]);
    clock.advance(250);
    await Promise.all([a, b]);
    expect(woke).toEqual(['b@1349', 'a@1349']);
    expect(clock.sleeping).toBe(0);
  });

  it('with autoAdvance, a sleep moves time to its wake-up at once; sleeping 0 does not wait', async () => {
    const clock = new FakeClock({ start: 0, autoAdvance: true });
    await clock.sleep(0);
    expect(clock.now()).toBe(0);
    const wall = Date.now();
    await clock.sleep(60_000);
    expect(clock.now()).toBe(60_000);
    expect(Date.now() - wall).toBeLessThan(1000);
  });
});
