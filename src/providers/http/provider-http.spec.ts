import { classifyHttpStatus, parseRetryAfter } from './provider-http';

describe(parseRetryAfter.name, () => {
  it('reads delay seconds and HTTP dates', () => {
    expect(parseRetryAfter('12')).toBe(12000);
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter('soon')).toBeNull();
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    expect(parseRetryAfter(inTenSeconds)).toBeGreaterThan(8000);
    expect(parseRetryAfter(new Date(Date.now() - 60_000).toUTCString())).toBe(0);
  });
});

describe(classifyHttpStatus.name, () => {
  it('429 or a provider rate-limit flag -> rate_limited with the delay', () => {
    expect(classifyHttpStatus({ status: 429, retryAfterMs: 3000 }, 'x')).toMatchObject({
      kind: 'rate_limited',
      retryAfterMs: 3000,
    });
    expect(classifyHttpStatus({ status: 400, retryAfterMs: null }, 'x', true)).toMatchObject({ kind: 'rate_limited' });
  });

  it('408 and 5xx -> unavailable; other statuses are left to the adapter', () => {
    expect(classifyHttpStatus({ status: 408, retryAfterMs: null }, 'x')).toMatchObject({ kind: 'unavailable' });
    expect(classifyHttpStatus({ status: 503, retryAfterMs: null }, 'x')).toMatchObject({ kind: 'unavailable' });
    expect(classifyHttpStatus({ status: 400, retryAfterMs: null }, 'x')).toBeNull();
    expect(classifyHttpStatus({ status: 401, retryAfterMs: null }, 'x')).toBeNull();
  });
});
