import { Injectable } from '@nestjs/common';
import http, { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { PassThrough, Readable } from 'node:stream';
import type { ResolvedAddress } from './dns-resolver';
import { PinnedTarget, TargetPolicy, TargetRefusedError } from './target-policy';

export interface FetchOptions {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** One deadline for DNS, every hop and the whole body. */
  timeoutMs: number;
  /** Larger bodies fail with FetchFailedError('too_large'). */
  maxBytes: number;
  /** Redirects followed, each target checked like the first (default 3); 0 returns a 3xx as the answer. */
  maxRedirects?: number;
  /**
   * Keep-alive pools to reuse sockets from (the webhook sender; none by default). A pooled socket was
   * connected through the pinned lookup of the request that opened it, so it still goes to an address
   * that passed the checks; new sockets are pinned as usual.
   */
  agents?: { http: http.Agent; https: https.Agent };
}

export interface FetchedResponse {
  /** The normalised URL that answered (after redirects). */
  url: string;
  status: number;
  headers: IncomingHttpHeaders;
  /** Capped at maxBytes and cut at the deadline (the stream errors with FetchFailedError). */
  body: Readable;
}

export type FetchFailureKind = 'timeout' | 'too_large' | 'network' | 'redirects';

/** The target was allowed but the fetch did not succeed; TargetRefusedError is the other failure. */
export class FetchFailedError extends Error {
  constructor(
    readonly kind: FetchFailureKind,
    message: string,
  ) {
    super(message);
    this.name = 'FetchFailedError';
  }
}

const MAX_REDIRECTS = 3;

/**
 * The only way the server fetches a user-supplied URL. Each hop: the URL is checked by the
 * TargetPolicy, its host resolved ONCE and the socket connected to that checked address (a pinned
 * `lookup`, so a second DNS answer cannot rebind it; TLS SNI and Host stay the hostname). A
 * redirect is followed only after its target passes the same checks. Size and time are capped.
 */
@Injectable()
export class GuardedFetcher {
  constructor(private readonly policy: TargetPolicy) {}

  /** Opens the response (status, headers, a capped body stream). Throws TargetRefusedError / FetchFailedError. */
  async open(raw: string, opts: FetchOptions): Promise<FetchedResponse> {
    const signal = AbortSignal.timeout(opts.timeoutMs);
    const maxRedirects = opts.maxRedirects ?? MAX_REDIRECTS;
    let url = this.policy.parse(raw);
    for (let hop = 0; ; hop++) {
      const target = await beforeDeadline(this.policy.pin(url), signal, opts.timeoutMs);
      // A redirect is followed with a plain GET (no method, headers or body of the first request).
      const res = await this.request(
        target,
        hop === 0 ? opts : { timeoutMs: opts.timeoutMs, maxBytes: opts.maxBytes },
        signal,
      );
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (maxRedirects === 0 || status < 300 || status >= 400 || !location) {
        return { url: url.href, status, headers: res.headers, body: capped(res, opts, signal) };
      }
      res.destroy();
      if (hop >= maxRedirects) throw new FetchFailedError('redirects', `more than ${maxRedirects} redirects`);
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw new TargetRefusedError('redirect to an invalid URL');
      }
      // Same checks as the first URL (its WHATWG serialisation is what we connect to).
      url = this.policy.parse(next.href);
    }
  }

  /** open() and read the whole (capped) body. */
  async fetch(raw: string, opts: FetchOptions): Promise<Omit<FetchedResponse, 'body'> & { body: Buffer }> {
    const res = await this.open(raw, opts);
    const chunks: Buffer[] = [];
    for await (const chunk of res.body) chunks.push(chunk as Buffer);
    return { ...res, body: Buffer.concat(chunks) };
  }

  private request(target: PinnedTarget, opts: FetchOptions, signal: AbortSignal): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const transport = target.url.protocol === 'https:' ? https : http;
      const body = opts.body ?? null;
      const headers = {
        ...opts.headers,
        ...(body !== null ? { 'Content-Length': String(Buffer.byteLength(body)) } : {}),
      };
      const agent = opts.agents ? (target.url.protocol === 'https:' ? opts.agents.https : opts.agents.http) : false;
      const req = transport.request(
        target.url,
        { method: opts.method ?? 'GET', headers, agent, signal, lookup: pinnedLookup(target.address) },
        resolve,
      );
      req.on('error', (err) => reject(failure(err, signal, opts.timeoutMs)));
      req.end(body ?? undefined);
    });
  }
}

/** A `lookup` that answers with the address already checked, whatever the name. */
function pinnedLookup(address: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, [address]);
    else callback(null, address.address, address.family);
  };
}

/** The response body as a stream that fails past maxBytes and at the deadline. */
function capped(res: IncomingMessage, opts: FetchOptions, signal: AbortSignal): Readable {
  const declared = Number(res.headers['content-length'] ?? NaN);
  const tooLarge = () => new FetchFailedError('too_large', `the response is larger than ${opts.maxBytes} bytes`);
  if (declared > opts.maxBytes) {
    res.destroy();
    // Errors only once read: a caller that drops the body unread (a webhook POST, an error status)
    // must not get an 'error' event it never listened for (an uncaught exception).
    return new Readable({
      read() {
        this.destroy(tooLarge());
      },
    });
  }
  const out = new PassThrough();
  let size = 0;
  res.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > opts.maxBytes) {
      res.destroy();
      out.destroy(tooLarge());
    } else if (!out.write(chunk)) res.pause();
  });
  out.on('drain', () => res.resume());
  res.on('end', () => out.end());
  res.on('error', (err) => out.destroy(failure(err, signal, opts.timeoutMs)));
  res.on('close', () => {
    if (!res.complete && !out.destroyed)
      out.destroy(failure(new Error('the connection closed before the body ended'), signal, opts.timeoutMs));
  });
  out.on('close', () => res.destroy());
  return out;
}

function failure(err: unknown, signal: AbortSignal, timeoutMs: number): Error {
  if (err instanceof FetchFailedError || err instanceof TargetRefusedError) return err;
  if (signal.aborted) return new FetchFailedError('timeout', `no answer within ${timeoutMs} ms`);
  const e = err as NodeJS.ErrnoException;
  return new FetchFailedError('network', (e.code ? `${e.code}: ${e.message}` : e.message).slice(0, 480));
}

function beforeDeadline<T>(p: Promise<T>, signal: AbortSignal, timeoutMs: number): Promise<T> {
  if (signal.aborted) return Promise.reject(failure(null, signal, timeoutMs));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(failure(null, signal, timeoutMs));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
