import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** The body of an event (Standard Webhooks): what happened, when, in which mode, and the resource. */
export interface EventBody<D = unknown> {
  type: string;
  /** ISO 8601: when it happened. */
  timestamp: string;
  /** False for every event of a test key's account (its test mode). */
  livemode: boolean;
  /** The resource as the API shows it (a message, a bulk job, an inbound SMS, ...). */
  data: D;
}

/** An event whose signature verified. */
export interface ReceivedEvent<D = unknown> {
  /** `webhook-id`: the same on every attempt and redelivery of one event (dedupe on it). */
  webhookId: string;
  headers: IncomingHttpHeaders;
  body: EventBody<D>;
}

/** A call the receiver refused (no secret yet, a bad or missing signature). */
export interface RefusedCall {
  reason: string;
  headers: IncomingHttpHeaders;
}

interface Waiter {
  match: (e: ReceivedEvent) => boolean;
  resolve: (e: ReceivedEvent) => void;
}

const header = (h: IncomingHttpHeaders, name: string): string => {
  const v = h[name];
  return Array.isArray(v) ? v.join(', ') : (v ?? '');
};

/**
 * A webhook endpoint on 127.0.0.1 (node:http), as an integrator's own would be: it verifies every
 * call's signature with the endpoint's secret over the raw body (`standardwebhooks`), answers 204 to
 * a verified event and 401 to anything else, and keeps what it got so tests can wait for an event.
 */
export class WebhookReceiver {
  /** Verified events, in the order they arrived (a redelivered event appears again). */
  readonly events: ReceivedEvent[] = [];
  /** Calls that were not verified: a test expects none. */
  readonly refused: RefusedCall[] = [];
  private verifier: Webhook | null = null;
  private waiters = new Set<Waiter>();

  private constructor(
    private readonly server: Server,
    /** The URL to register as the endpoint. */
    readonly url: string,
  ) {}

  static async start(path = '/webhooks/messaging'): Promise<WebhookReceiver> {
    let receiver: WebhookReceiver | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const status = receiver?.receive(req.method ?? '', Buffer.concat(chunks).toString('utf8'), req.headers) ?? 503;
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    receiver = new WebhookReceiver(server, `http://127.0.0.1:${port}${path}`);
    return receiver;
  }

  /** The endpoint's `whsec_...` secret (from its creation answer): calls are refused until it is set. */
  useSecret(secret: string): void {
    this.verifier = new Webhook(secret);
  }

  /**
   * The first event (already received or still to come) that `match` accepts; rejects after
   * `timeoutMs`, naming `what` and the types received meanwhile.
   */
  waitFor<D>(what: string, match: (e: ReceivedEvent<D>) => boolean, timeoutMs: number): Promise<ReceivedEvent<D>> {
    const test = match as (e: ReceivedEvent) => boolean;
    const seen = this.events.find(test);
    if (seen) return Promise.resolve(seen as ReceivedEvent<D>);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        match: test,
        resolve: (e) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(e as ReceivedEvent<D>);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        const types = this.events.map((e) => e.body.type).join(', ') || 'none';
        const refused = this.refused.length
          ? `; ${this.refused.length} call(s) refused: ${this.refused[0].reason}`
          : '';
        reject(new Error(`No ${what} within ${timeoutMs} ms (events received: ${types}${refused})`));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** One call: its HTTP answer. Verifies the raw bytes as they arrived, never re-serialised JSON. */
  private receive(method: string, raw: string, headers: IncomingHttpHeaders): number {
    if (method !== 'POST') return 405;
    if (!this.verifier) {
      this.refused.push({ reason: 'no secret yet', headers });
      return 503;
    }
    let body: EventBody;
    try {
      body = this.verifier.verify(raw, {
        'webhook-id': header(headers, 'webhook-id'),
        'webhook-timestamp': header(headers, 'webhook-timestamp'),
        'webhook-signature': header(headers, 'webhook-signature'),
      }) as EventBody;
    } catch (err) {
      this.refused.push({ reason: err instanceof Error ? err.message : String(err), headers });
      return 401;
    }
    const event: ReceivedEvent = { webhookId: header(headers, 'webhook-id'), headers, body };
    this.events.push(event);
    for (const w of [...this.waiters]) if (w.match(event)) w.resolve(event);
    return 204;
  }
}
