import { ClientRequest, IncomingMessage, request } from 'node:http';

/** One server-sent event as a client parses it, or a comment line (`: ping`). */
export interface SseEvent {
  event: string;
  data: string;
  /** Milliseconds since the stream was opened. */
  at: number;
}

export interface SseStream {
  status: number;
  contentType: string | undefined;
  events: SseEvent[];
  comments: string[];
  /** Resolves once the server ended the stream (or the connection broke). */
  closed: Promise<void>;
  isClosed(): boolean;
  /** Resolves with the first event (already received or to come) matching `pred`. */
  next(pred: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  /** Closes the connection from the client side. */
  abort(): void;
}

/** Opens `url` as an event stream with a plain HTTP GET (what a `fetch()` reader does) and parses it as it arrives. */
export function openSse(url: string, headers: Record<string, string>): Promise<SseStream> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req: ClientRequest = request(
      url,
      { headers: { Accept: 'text/event-stream', ...headers } },
      (res: IncomingMessage) => {
        const events: SseEvent[] = [];
        const comments: string[] = [];
        const waiters = new Set<() => void>();
        let buf = '';
        let closed = false;
        let block: { event: string; data: string[] } = { event: 'message', data: [] };
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buf += chunk;
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl).replace(/\r$/, '');
            buf = buf.slice(nl + 1);
            if (line === '') {
              if (block.data.length)
                events.push({ event: block.event, data: block.data.join('\n'), at: Date.now() - started });
              block = { event: 'message', data: [] };
            } else if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('event:')) block.event = line.slice(6).trim();
            else if (line.startsWith('data:')) block.data.push(line.slice(5).replace(/^ /, ''));
          }
          for (const w of [...waiters]) w();
        });
        const closedP = new Promise<void>((done) => {
          const end = () => {
            closed = true;
            for (const w of [...waiters]) w();
            done();
          };
          res.on('end', end);
          res.on('close', end);
          res.on('error', end);
        });
        resolve({
          status: res.statusCode ?? 0,
          contentType: res.headers['content-type'],
          events,
          comments,
          closed: closedP,
          isClosed: () => closed,
          abort: () => req.destroy(),
          next(pred, timeoutMs = 20000) {
            return new Promise((ok, fail) => {
              const check = () => {
                const found = events.find(pred);
                if (found) return finish(() => ok(found));
                if (closed)
                  finish(() =>
                    fail(
                      new Error(`stream closed without the event; got ${JSON.stringify(events.map((e) => e.event))}`),
                    ),
                  );
              };
              const timer = setTimeout(
                () =>
                  finish(() =>
                    fail(new Error(`no matching event within ${timeoutMs} ms; got ${events.length} events`)),
                  ),
                timeoutMs,
              );
              const finish = (fn: () => void) => {
                clearTimeout(timer);
                waiters.delete(check);
                fn();
              };
              waiters.add(check);
              check();
            });
          },
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
