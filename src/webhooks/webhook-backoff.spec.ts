import { MAX_ATTEMPTS, retryDelayMs } from './webhook-backoff';

describe('retryDelayMs', () => {
  it('first retry waits the base, each later one longer', () => {
    expect(retryDelayMs(1, 5000, () => 0)).toBe(5000);
    expect(retryDelayMs(2, 5000, () => 0)).toBe(15000);
    expect(retryDelayMs(3, 5000, () => 0)).toBe(45000);
  });

  it('adds at most 20% jitter and never less than the base', () => {
    expect(retryDelayMs(1, 5000, () => 0.999)).toBeLessThanOrEqual(6000);
    for (let i = 0; i < 100; i++) {
      const d = retryDelayMs(1, 1000);
      expect(d).toBeGreaterThanOrEqual(1000);
      expect(d).toBeLessThanOrEqual(1200);
    }
  });

  it('allows 1 attempt plus 3 retries', () => {
    expect(MAX_ATTEMPTS).toBe(4);
  });
});
