import { Injectable } from '@nestjs/common';
import { LookupAddress, lookup as dnsLookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, LookupFunction } from 'node:net';
import { WebhookTargetPolicy } from './webhook-target.policy';

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
/** Error code of our guarded DNS lookup when a name resolves to a non-public address. */
const REFUSED_CODE = 'ETARGETREFUSED';

/**
 * One POST, no redirects followed (a 3xx is a failure), a hard deadline, no pooled sockets, and the
 * address actually connected to checked against the SSRF policy (so DNS rebinding cannot slip in).
 */
@Injectable()
export class WebhookHttpClient {
  constructor(private readonly policy: WebhookTargetPolicy) {}

  post(rawUrl: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<PostOutcome> {
    const started = Date.now();
    const done = (ok: boolean, httpStatus: number | null, error: string | null, refused = false): PostOutcome => ({ ok, httpStatus, durationMs: Date.now() - started, error, refused });
    const syntax = this.policy.checkSyntax(rawUrl);
    if (!syntax.ok) return Promise.resolve(done(false, null, `target refused: url ${syntax.reason}`, true));
    const url = syntax.url;
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(literal) && !this.policy.addressAllowed(literal)) return Promise.resolve(done(false, null, 'target refused: not a public address', true));

    return new Promise<PostOutcome>((resolve) => {
      let settled = false;
      const finish = (o: PostOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(o);
      };
      const transport = url.protocol === 'https:' ? https : http;
      const req = transport.request(url, {
        method: 'POST',
        agent: false,
        lookup: this.guardedLookup(),
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
      });
      const timer = setTimeout(() => {
        finish(done(false, null, `timeout after ${timeoutMs} ms`));
        req.destroy();
      }, timeoutMs);
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        let size = 0;
        // Drain (bounded) so the socket closes cleanly; the body itself is not needed.
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) res.destroy();
        });
        const end = () => {
          const ok = status >= 200 && status < 300;
          const error = ok ? null : status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`;
          finish(done(ok, status, error));
        };
        res.on('end', end);
        res.on('close', end);
        res.on('error', end);
      });
      req.on('error', (err: NodeJS.ErrnoException) => finish(done(false, null, describe(err), err.code === REFUSED_CODE)));
      req.end(body);
    });
  }

  /** dns.lookup that refuses non-public addresses unless insecure targets are allowed. */
  private guardedLookup(): LookupFunction {
    return (hostname, options, callback) => {
      dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
        if (err) return callback(err, '', 0);
        const refused = addresses.find((a) => !this.policy.addressAllowed(a.address));
        if (refused || addresses.length === 0) {
          const e: NodeJS.ErrnoException = new Error(`target refused: ${hostname} resolves to a non-public address`);
          e.code = REFUSED_CODE;
          return callback(e, '', 0);
        }
        if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
        return callback(null, addresses[0].address, addresses[0].family);
      });
    };
  }
}

function describe(err: NodeJS.ErrnoException): string {
  if (err.code === REFUSED_CODE) return err.message;
  const text = err.code ? `${err.code}: ${err.message}` : err.message;
  return `connection error: ${text}`.slice(0, 480);
}
