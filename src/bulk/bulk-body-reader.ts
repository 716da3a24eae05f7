import type { Readable } from 'node:stream';
import { JsonBodyScanner, ScanError, ScanLimits, ValueTooLargeError } from './json-body-scanner';

/** What the reader learned about the body once it ended (or once it stopped reading). */
export interface BodyOutcome {
  /** Body was not JSON, or not a JSON object, or nested too deep. */
  invalidBody: string | null;
  /**
   * An element (or another value) passed the size limit: the reader stopped at once and left the
   * rest of the body unread, so the connection cannot be reused (the caller answers and closes it).
   */
  tooLarge: ValueTooLargeError | null;
  /** The client went away before the body ended. */
  aborted: boolean;
  top: Record<string, unknown>;
  /** `messages` was present and an array (even empty). */
  messagesIsArray: boolean;
  count: number;
}

const TOP_FIELDS = new Set(['name', 'messagesPerSecond', 'idempotencyKey', 'testOptions']);

/**
 * Streams a bulk body: every element of `messages` is handed to `onMessage` (parsed, with its text)
 * as soon as it is complete; the request is paused while a returned promise runs, so memory stays
 * flat. `name`, `messagesPerSecond` and `idempotencyKey` are kept wherever they appear; other
 * top-level fields are checked as JSON and dropped. A syntax error stops storing, the rest of the
 * body is drained (without scanning); a value over the size limit stops reading at once.
 */
export function readBulkBody(
  req: Readable,
  limits: ScanLimits,
  onMessage: (index: number, value: unknown, text: string) => Promise<void> | void,
): Promise<BodyOutcome> {
  return new Promise((resolve, reject) => {
    const out: BodyOutcome = {
      invalidBody: null,
      tooLarge: null,
      aborted: false,
      top: {},
      messagesIsArray: false,
      count: 0,
    };
    let answered = false;
    let ended = false;
    let failed = false;
    const fail = (err: unknown) => {
      if (err instanceof ScanError || err instanceof SyntaxError) {
        out.invalidBody ??= err instanceof SyntaxError ? `The body is not valid JSON: ${err.message}` : err.message;
        return;
      }
      if (err instanceof ValueTooLargeError) {
        out.tooLarge = err;
        req.pause();
        req.off('data', onData);
        busy = false;
        return finish();
      }
      failed = true;
      answered = true;
      req.resume();
      reject(err);
    };
    const scanner = new JsonBodyScanner(
      {
        element: (text) => onMessage(out.count++, JSON.parse(text), text) ?? undefined,
        field: (key, text) => {
          const value: unknown = JSON.parse(text);
          if (key === 'messages') out.messagesIsArray = false;
          if (TOP_FIELDS.has(key)) out.top[key] = value;
        },
        messagesArray: () => {
          out.messagesIsArray = true;
        },
      },
      limits,
    );
    let busy = false;
    const queue: Buffer[] = [];
    const feed = (chunk: Buffer) => {
      if (failed || out.invalidBody || out.tooLarge) return;
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
        if (failed || out.tooLarge) return;
        let next: Promise<void> | null = null;
        try {
          if (!out.invalidBody) next = scanner.resume();
        } catch (err) {
          busy = false;
          fail(err);
          if (out.tooLarge) return;
        }
        if (next) return drive(next);
        busy = false;
        while (queue.length && !busy && !out.tooLarge) feed(queue.shift() as Buffer);
        if (busy || out.tooLarge) return;
        req.resume();
        if (ended || out.aborted) finishEnd();
      }, fail);
    };
    const finish = () => {
      if (answered || busy) return;
      answered = true;
      resolve(out);
    };
    const finishEnd = () => {
      if (answered || busy) return;
      if (!out.invalidBody && !out.aborted) {
        try {
          scanner.end();
        } catch (err) {
          fail(err);
        }
      }
      finish();
    };
    const onData = (chunk: Buffer) => (busy ? queue.push(chunk) : feed(chunk));
    req.on('data', onData);
    req.on('end', () => {
      ended = true;
      finishEnd();
    });
    req.on('error', () => {
      out.aborted = true;
    });
    req.on('close', () => {
      if (!ended && !answered) {
        out.aborted = true;
        finishEnd();
      }
    });
  });
}
