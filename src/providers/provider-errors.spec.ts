import { ApiError } from '../common/errors';
import { failedCallOutcome, toApiError } from './provider-errors';
import { ProviderError } from './provider.types';

describe('provider errors', () => {
  it('maps a rate limit to 429 PROVIDER_RATE_LIMITED with whole seconds to wait, at least one', () => {
    const slow = toApiError(new ProviderError('rate_limited', 'slow down', 2500));
    expect(slow).toMatchObject({
      code: 'PROVIDER_RATE_LIMITED',
      message: 'Provider rate limit: slow down',
      extra: { retryAfterSeconds: 3 },
    });
    expect(toApiError(new ProviderError('rate_limited', 'x', 10))).toMatchObject({ extra: { retryAfterSeconds: 1 } });
    expect(toApiError(new ProviderError('rate_limited', 'x'))).toMatchObject({ extra: { retryAfterSeconds: 1 } });
  });

  it('maps unavailable to PROVIDER_UNAVAILABLE and every other failure to PROVIDER_ERROR', () => {
    expect(toApiError(new ProviderError('unavailable', 'down'))).toMatchObject({
      code: 'PROVIDER_UNAVAILABLE',
      message: 'Provider unavailable: down',
    });
    expect(toApiError(new ProviderError('failed', 'bad'))).toMatchObject({
      code: 'PROVIDER_ERROR',
      message: 'Provider error: bad',
    });
    expect(toApiError(new Error('socket hang up'))).toMatchObject({
      code: 'PROVIDER_ERROR',
      message: 'Provider error: socket hang up',
    });
    expect(toApiError('plain')).toMatchObject({ code: 'PROVIDER_ERROR', message: 'Provider error: plain' });
  });

  it('passes an ApiError through unchanged', () => {
    const err = new ApiError('INVALID_ATTACHMENT', 'no');
    expect(toApiError(err)).toBe(err);
  });

  it('classifies a failed call for the provider duration metric', () => {
    expect(failedCallOutcome(toApiError(new ProviderError('rate_limited', 'x')))).toBe('rate_limited');
    expect(failedCallOutcome(toApiError(new ProviderError('unavailable', 'x')))).toBe('unavailable');
    expect(failedCallOutcome(toApiError(new ProviderError('failed', 'x')))).toBe('error');
    expect(failedCallOutcome(new Error('bug'))).toBe('error');
  });
});
