import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerLimitDetail } from '@nestjs/throttler';
import { ApiError } from '../common/errors';
import { AuthedRequest } from './auth-context';

/** Counts per API key once authenticated, per client IP otherwise; 429 RATE_LIMITED in our envelope. */
@Injectable()
export class ApiThrottlerGuard extends ThrottlerGuard {
  protected override async getTracker(req: Record<string, unknown>): Promise<string> {
    const r = req as unknown as AuthedRequest;
    return r.auth ? `key:${r.auth.keyId}` : `ip:${r.ip ?? 'unknown'}`;
  }

  /**
   * One budget per caller across all routes (the library default keys by route + handler, which
   * would multiply a key's allowance by the number of routes).
   */
  protected override generateKey(_ctx: ExecutionContext, tracker: string, throttlerName: string): string {
    return `rl:${throttlerName}:${tracker}`;
  }

  protected override async throwThrottlingException(_ctx: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    const retryAfterSeconds = Math.max(1, Math.ceil(detail.timeToBlockExpire || detail.timeToExpire || 1));
    throw new ApiError('RATE_LIMITED', `Rate limit exceeded; retry after ${retryAfterSeconds} s`, { retryAfterSeconds });
  }
}
