import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
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

/** Idle keep-alive sockets are closed after this, before common servers' own idle timeouts (5 s in Node). */
const IDLE_SOCKET_MS = 4000;

/**
 * One POST through the guarded fetcher (target rules, pinned address): no redirects followed (a
 * 3xx is a failure), a hard deadline. Sockets are kept alive and reused per receiver (opening one
 * per delivery caps a replica at a few hundred deliveries/s); the answer's body is read (capped) and
 * dropped, so the socket can be reused.
 */
@Injectable()
export class WebhookHttpClient implements OnApplicationShutdown {
  private readonly agents = {
    http: new http.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' }),
    https: new https.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' }),
  };

  constructor(private readonly fetcher: GuardedFetcher) {}

  // After the shutdown coordinator drained the sends in flight (it runs in onModuleDestroy).
  onApplicationShutdown(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  async post(rawUrl: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<PostOutcome> {
    const started = Date.now();
    const done = (ok: boolean, httpStatus: number | null, error: string | null, refused = false): PostOutcome => ({
      ok,
      httpStatus,
      durationMs: Date.now() - started,
      error,
      refused,
    });
    try {
      const res = await this.fetcher.open(rawUrl, {
        method: 'POST',
        headers,
        body,
        timeoutMs,
        maxBytes: MAX_RESPONSE_BYTES,
        maxRedirects: 0,
        agents: this.agents,
      });
      await drained(res.body);
      const status = res.status;
      if (status >= 200 && status < 300) return done(true, status, null);
      return done(
        false,
        status,
        status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`,
      );
    } catch (err) {
      // One text for every refusal: the delivery log must not tell which names resolve where.
      if (err instanceof TargetRefusedError) return done(false, null, 'target refused: not an allowed target', true);
      if (err instanceof FetchFailedError)
        return done(
          false,
          null,
          err.kind === 'timeout' ? `timeout after ${timeoutMs} ms` : `connection error: ${err.message}`,
        );
      throw err;
    }
  }
}

/** Reads and drops an answer's body (a socket is reused only once its answer is read); too large or cut short changes nothing. */
function drained(body: Readable): Promise<void> {
  return new Promise((resolve) => {
    body
      .on('end', resolve)
      .on('error', () => resolve())
      .on('close', resolve);
    body.resume();
  });
}
