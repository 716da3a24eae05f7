import { Injectable } from '@nestjs/common';
import { FetchFailedError, GuardedFetcher } from '../common/net/guarded-fetcher';
import { TargetRefusedError } from '../common/net/target-policy';

export interface PostOutcome {
  /** True for a 2xx answer. */
  ok: boolean;
  httpStatus: number | null;
  durationMs: number;
  error: string | null;
  /** The SSRF policy refused the target (no request was made): retrying cannot help. */
  refused: boolean;
}

const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * One POST through the guarded fetcher (target rules, pinned address): no redirects followed (a
 * 3xx is a failure), a hard deadline, no pooled sockets. The answer's body is not needed.
 */
@Injectable()
export class WebhookHttpClient {
  constructor(private readonly fetcher: GuardedFetcher) {}

  async post(rawUrl: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<PostOutcome> {
    const started = Date.now();
    const done = (ok: boolean, httpStatus: number | null, error: string | null, refused = false): PostOutcome => ({ ok, httpStatus, durationMs: Date.now() - started, error, refused });
    try {
      const res = await this.fetcher.open(rawUrl, { method: 'POST', headers, body, timeoutMs, maxBytes: MAX_RESPONSE_BYTES, maxRedirects: 0 });
      res.body.destroy();
      const status = res.status;
      if (status >= 200 && status < 300) return done(true, status, null);
      return done(false, status, status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`);
    } catch (err) {
      // One text for every refusal: the delivery log must not tell which names resolve where.
      if (err instanceof TargetRefusedError) return done(false, null, 'target refused: not an allowed target', true);
      if (err instanceof FetchFailedError) return done(false, null, err.kind === 'timeout' ? `timeout after ${timeoutMs} ms` : `connection error: ${err.message}`);
      throw err;
    }
  }
}
