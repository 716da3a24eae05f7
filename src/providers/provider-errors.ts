import { ApiError } from '../common/errors';
import type { ProviderCallOutcome } from '../metrics/metrics.service';
import { ProviderError } from './provider.types';

/**
 * A provider call's failure as one of three stable ApiErrors: rate_limited -> PROVIDER_RATE_LIMITED
 * (429, with Retry-After), unavailable / timeout -> PROVIDER_UNAVAILABLE (503), anything else ->
 * PROVIDER_ERROR (502). An ApiError passes through unchanged.
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof ProviderError) {
    if (err.kind === 'rate_limited') {
      const retryAfterSeconds = Math.max(1, Math.ceil((err.retryAfterMs ?? 1000) / 1000));
      return new ApiError('PROVIDER_RATE_LIMITED', `Provider rate limit: ${err.message}`, { retryAfterSeconds });
    }
    if (err.kind === 'unavailable') return new ApiError('PROVIDER_UNAVAILABLE', `Provider unavailable: ${err.message}`);
    return new ApiError('PROVIDER_ERROR', `Provider error: ${err.message}`);
  }
  return new ApiError('PROVIDER_ERROR', `Provider error: ${err instanceof Error ? err.message : String(err)}`);
}

/** The provider_request_duration_seconds outcome of a call that threw (already mapped by toApiError). */
export function failedCallOutcome(err: unknown): ProviderCallOutcome {
  const code = err instanceof ApiError ? err.code : null;
  if (code === 'PROVIDER_RATE_LIMITED') return 'rate_limited';
  if (code === 'PROVIDER_UNAVAILABLE') return 'unavailable';
  return 'error';
}
