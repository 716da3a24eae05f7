import { FixedWindowThrottlerStorage } from './fixed-window-throttler.storage';

describe(FixedWindowThrottlerStorage.name, () => {
  let now = 1_000_000;
  const sut = new FixedWindowThrottlerStorage(() => now, 10_000_000);
  afterAll(() => sut.onApplicationShutdown());

  it('allows `limit` hits per window, then blocks until the window ends', async () => {
    for (let i = 1; i <= 3; i++)
      expect(await sut.increment('k', 30_000, 3, 30_000, 'default')).toMatchObject({ totalHits: i, isBlocked: false });
    now += 10_000;
    expect(await sut.increment('k', 30_000, 3, 30_000, 'default')).toEqual({
      totalHits: 4,
      timeToExpire: 20,
      isBlocked: true,
      timeToBlockExpire: 20,
    });
    now += 20_000;
    expect(await sut.increment('k', 30_000, 3, 30_000, 'default')).toMatchObject({
      totalHits: 1,
      isBlocked: false,
      timeToExpire: 30,
    });
  });

  it('keeps keys and throttlers apart', async () => {
    await sut.increment('a', 1000, 1, 1000, 'default');
    expect((await sut.increment('b', 1000, 1, 1000, 'default')).isBlocked).toBe(false);
    expect((await sut.increment('a', 1000, 1, 1000, 'other')).isBlocked).toBe(false);
    expect((await sut.increment('a', 1000, 1, 1000, 'default')).isBlocked).toBe(true);
  });
});
