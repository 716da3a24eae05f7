import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedCall {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: unknown;
  at: number;
}

/** How the receiver answers call number `n` (1-based): a status, optionally after a delay, or a redirect. */
export type Reply = number | { status: number; delayMs?: number; location?: string };

export interface WebhookReceiver {
  url: string;
  calls: ReceivedCall[];
  /** Change the answer for the following calls. */
  respond(fn: (call: ReceivedCall, n: number) => Reply): void;
  close(): Promise<void>;
}

/** A real HTTP server that records every webhook call (default answer: 200 `{ ok: true }`). */
export async function startReceiver(
  fn: (call: ReceivedCall, n: number) => Reply = () => 200,
  path = '/hook',
): Promise<WebhookReceiver> {
  let reply = fn;
  const calls: ReceivedCall[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = null;
      try {
        body = JSON.parse(raw);
      } catch {
        body = null;
      }
      const call: ReceivedCall = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        raw,
        body,
        at: Date.now(),
      };
      calls.push(call);
      const r = reply(call, calls.length);
      const { status, delayMs = 0, location } = typeof r === 'number' ? { status: r } : r;
      const timer = setTimeout(() => {
        if (res.destroyed) return;
        if (location) res.setHeader('Location', location);
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ ok: status >= 200 && status < 300 }));
      }, delayMs);
      res.on('close', () => clearTimeout(timer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    calls,
    respond(next) {
      reply = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
