import { createHmac } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

export type WahaMode = 'ok' | 'error500' | 'unavailable503' | 'hang' | 'garbage';

/** A local fake of the WAHA HTTP API: sessions, chats with limit/offset paging, API-key check, faults. */
export class WahaFake {
  readonly apiKey = 'waha-test-key-123';
  mode: WahaMode = 'ok';
  sessions = new Map<string, string>();
  chats = new Map<string, Record<string, unknown>[]>();
  requests: { path: string; query: URLSearchParams; apiKey: string | undefined }[] = [];
  /** Messages received on the send routes; chat `rejected@c.us` answers 422. */
  sent: { path: string; body: Record<string, unknown>; apiKey: string | undefined }[] = [];
  private server!: Server;
  baseUrl = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.handle(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  private handle(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const url = new URL(req.url ?? '/', 'http://x');
    const apiKey = req.headers['x-api-key'] as string | undefined;
    this.requests.push({ path: url.pathname, query: url.searchParams, apiKey });
    const json = (status: number, body: unknown): void =>
      void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (this.mode === 'hang') return; // never answers: the adapter's timeout must fire
    if (this.mode === 'error500') return json(500, { statusCode: 500, message: 'engine crashed' });
    if (this.mode === 'unavailable503') return json(503, { message: 'restarting' });
    if (this.mode === 'garbage')
      return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>proxy</html>');
    if (apiKey !== this.apiKey) return json(401, { message: 'Unauthorized' });
    if (req.method === 'POST' && /^\/api\/send(Text|Image|Video|File)$/.test(url.pathname)) {
      const body = JSON.parse(raw) as Record<string, unknown>;
      this.sent.push({ path: url.pathname, body, apiKey });
      if (body.chatId === 'rejected@c.us') return json(422, { message: 'chat not found' });
      return json(201, {
        id: {
          fromMe: true,
          remote: body.chatId,
          id: `MSG${this.sent.length}`,
          _serialized: `true_${String(body.chatId)}_MSG${this.sent.length}`,
        },
        body: body.text,
      });
    }
    let m = /^\/api\/sessions\/([^/]+)$/.exec(url.pathname);
    if (m) {
      const status = this.sessions.get(decodeURIComponent(m[1]));
      return status ? json(200, { name: m[1], status, config: {} }) : json(404, { message: 'Session not found' });
    }
    m = /^\/api\/([^/]+)\/chats$/.exec(url.pathname);
    if (m) {
      const all = this.chats.get(decodeURIComponent(m[1])) ?? [];
      const offset = Number(url.searchParams.get('offset') ?? 0);
      const limit = Number(url.searchParams.get('limit') ?? all.length);
      return json(200, all.slice(offset, offset + limit));
    }
    json(404, { message: 'no route' });
  }
}

/** What WAHA sends: hex HMAC-SHA512 of the body with the session's key. */
export function wahaSignature(key: string, body: string): string {
  return createHmac('sha512', key).update(body).digest('hex');
}

const ACK_NAMES: Record<number, string> = {
  [-1]: 'ERROR',
  0: 'PENDING',
  1: 'SERVER',
  2: 'DEVICE',
  3: 'READ',
  4: 'PLAYED',
};

/** A WAHA `message.ack` event for a message the session sent (`id`: WAHA's serialized id). */
export function wahaAck(id: string, ack: number, session = 'default'): Record<string, unknown> {
  const chat = /^true_(.+)_[^_]+$/.exec(id)?.[1] ?? '966511111111@c.us';
  return {
    id: `evt_ack_${id}_${ack}`,
    event: 'message.ack',
    session,
    timestamp: Date.now(),
    payload: {
      id,
      from: chat,
      to: chat,
      fromMe: true,
      ack,
      ackName: ACK_NAMES[ack] ?? String(ack),
      timestamp: Math.floor(Date.now() / 1000),
    },
  };
}
