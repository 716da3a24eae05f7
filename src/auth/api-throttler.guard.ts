import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerLimitDetail, ThrottlerRequest } from '@nestjs/throttler';
import { ApiError } from '../common/errors';
import { AuthedRequest } from './auth-context';
import { THROTTLE_PER_IP_KEY } from './decorators';

/** Name of the per-client-IP throttler (auth.module.ts); it counts only @ThrottlePerIp() routes. */
export const PER_IP_THROTTLER = 'ip';

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

  protected override async handleRequest(props: ThrottlerRequest): Promise<boolean> {
    if (props.throttler.name === PER_IP_THROTTLER) {
      const optedIn = this.reflector.getAllAndOverride<boolean>(THROTTLE_PER_IP_KEY, [
        props.context.getHandler(),
        props.context.getClass(),
      ]);
      if (!optedIn) return true;
    }
    return super.handleRequest(props);
  }

  protected override async throwThrottlingException(
    _ctx: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    const retryAfterSeconds = Math.max(1, Math.ceil(detail.timeToBlockExpire || detail.timeToExpire || 1));
    throw new ApiError('RATE_LIMITED', `Rate limit exceeded; retry after ${retryAfterSeconds} s`, {
      retryAfterSeconds,
    });
  }
}
