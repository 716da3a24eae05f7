import type { Readable } from 'node:stream';
import { JsonBodyScanner, ScanError } from './json-body-scanner';

/** What the reader learned about the body once it ended. */
export interface BodyOutcome {
  /** Body was not JSON, or not a JSON object. */
  invalidBody: string | null;
  /** The client went away before the body ended. */
  aborted: boolean;
  top: Record<string, unknown>;
  /** `messages` was present and an array (even empty). */
  messagesIsArray: boolean;
  count: number;
}

const TOP_FIELDS = new Set(['name', 'messagesPerSecond', 'idempotencyKey']);

/**
 * Streams a bulk body: every element of `messages` is handed to `onMessage` (parsed, with its text)
 * as soon as it is complete; the request is paused while a returned promise runs, so memory stays
 * flat. `name`, `messagesPerSecond` and `idempotencyKey` are kept wherever they appear; other
 * top-level fields are checked as JSON and dropped. A syntax error stops storing, the rest of the
 * body is drained.
 */
export function readBulkBody(req: Readable, onMessage: (index: number, value: unknown, text: string) => Promise<void> | void): Promise<BodyOutcome> {
  return new Promise((resolve, reject) => {
    const out: BodyOutcome = { invalidBody: null, aborted: false, top: {}, messagesIsArray: false, count: 0 };
    let settled = false;
    let ended = false;
    let failed = false;
    const fail = (err: unknown) => {
      if (err instanceof ScanError || err instanceof SyntaxError) {
        out.invalidBody ??= err instanceof SyntaxError ? `The body is not valid JSON: ${err.message}` : err.message;
        return;
      }
      failed = true;
      settled = true;
      req.resume();
      reject(err);
    };
    const scanner = new JsonBodyScanner({
      element: (text) => onMessage(out.count++, JSON.parse(text), text) ?? undefined,
      field: (key, text) => {
        const value: unknown = JSON.parse(text);
        if (key === 'messages') out.messagesIsArray = false;
        if (TOP_FIELDS.has(key)) out.top[key] = value;
      },
      messagesArray: () => {
        out.messagesIsArray = true;
      },
    });
    let busy = false;
    const queue: string[] = [];
    const feed = (chunk: string) => {
      if (failed || out.invalidBody) return;
      try {
        const p = scanner.write(chunk);
        if (p) drive(p);
      } catch (err) {
        fail(err);
      }
    };
    // The sink asked to wait (a batch is being stored): pause the request until it is done.
    const drive = (p: Promise<void>) => {
      busy = true;
      req.pause();
      p.then(() => {
        if (failed) return;
        let next: Promise<void> | null = null;
        try {
          if (!out.invalidBody) next = scanner.resume();
        } catch (err) {
          fail(err);
        }
        if (next) return drive(next);
        busy = false;
        while (queue.length && !busy) feed(queue.shift() as string);
        if (busy) return;
        req.resume();
        if (ended || out.aborted) finishEnd();
      }, fail);
    };
    const finishEnd = () => {
      if (settled || busy) return;
      if (!out.invalidBody && !out.aborted) {
        try {
          scanner.end();
        } catch (err) {
          fail(err);
        }
      }
      if (!settled) {
        settled = true;
        resolve(out);
      }
    };
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (busy ? queue.push(chunk) : feed(chunk)));
    req.on('end', () => {
      ended = true;
      finishEnd();
    });
    req.on('error', () => {
      out.aborted = true;
    });
    req.on('close', () => {
      if (!ended && !settled) {
        out.aborted = true;
        finishEnd();
      }
    });
  });
}
