import type { Readable } from 'node:stream';
// stream-json v1 is CommonJS.
import Assembler = require('stream-json/Assembler');
import { parser } from 'stream-json';

interface Token {
  name: string;
  value?: unknown;
}

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

type AsmToken = Parameters<Assembler['consume']>[0];
const feed = (asm: Assembler, t: Token): void => {
  asm.consume(t as unknown as AsmToken);
};
const TOP_FIELDS = new Set(['name', 'messagesPerSecond', 'idempotencyKey']);
const PRIMITIVE: Record<string, (v: unknown) => unknown> = {
  stringValue: (v) => v,
  numberValue: (v) => Number(v),
  nullValue: () => null,
  trueValue: () => true,
  falseValue: () => false,
};

/**
 * Streams a bulk body: every element of `messages` is handed to `onMessage` as soon as it is complete
 * (the reader pauses while the returned promise runs, so memory stays flat); `name`,
 * `messagesPerSecond` and `idempotencyKey` are kept wherever they appear. Other top-level fields are
 * consumed and dropped.
 */
export function readBulkBody(req: Readable, onMessage: (index: number, value: unknown) => Promise<void> | void): Promise<BodyOutcome> {
  return new Promise((resolve, reject) => {
    const out: BodyOutcome = { invalidBody: null, aborted: false, top: {}, messagesIsArray: false, count: 0 };
    const p = parser({ packValues: true, streamValues: false });
    let depth = 0;
    let key: string | null = null;
    let inMessages = false;
    let asm: Assembler | null = null;
    let asmTarget: 'message' | 'top' = 'top';
    let settled = false;
    let ended = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      resolve(out);
    };
    const deliver = (value: unknown) => {
      const index = out.count++;
      const r = onMessage(index, value);
      if (r && typeof (r as Promise<void>).then === 'function') {
        p.pause();
        (r as Promise<void>).then(
          () => p.resume(),
          (err: unknown) => {
            settled = true;
            req.unpipe(p);
            req.resume();
            reject(err);
          },
        );
      }
    };
    const handle = (t: Token) => {
      if (asm) {
        feed(asm, t);
        if (asm.done) {
          const value = asm.current;
          asm = null;
          if (asmTarget === 'message') deliver(value);
          else if (key !== null && TOP_FIELDS.has(key)) out.top[key] = value;
        }
        return;
      }
      if (depth === 0) {
        if (t.name !== 'startObject') out.invalidBody = 'The body must be a JSON object';
        depth = 1;
        return;
      }
      if (out.invalidBody) return;
      if (inMessages) {
        if (t.name === 'endArray') {
          inMessages = false;
          return;
        }
        if (t.name in PRIMITIVE) return deliver(PRIMITIVE[t.name](t.value));
        asm = new Assembler();
        asmTarget = 'message';
        feed(asm, t);
        return;
      }
      if (t.name === 'keyValue') {
        key = String(t.value);
        return;
      }
      if (t.name === 'endObject') return;
      if (key === 'messages' && t.name === 'startArray') {
        out.messagesIsArray = true;
        inMessages = true;
        return;
      }
      if (key === 'messages') out.messagesIsArray = false;
      if (t.name in PRIMITIVE) {
        if (key !== null && TOP_FIELDS.has(key)) out.top[key] = PRIMITIVE[t.name](t.value);
        return;
      }
      asm = new Assembler();
      asmTarget = 'top';
      feed(asm, t);
    };
    p.on('data', (t: Token) => {
      if (settled) return;
      try {
        handle(t);
      } catch (err) {
        out.invalidBody = (err as Error).message;
      }
    });
    p.on('error', (err: Error) => {
      if (!out.invalidBody) out.invalidBody = ended || !out.aborted ? `The body is not valid JSON: ${err.message}` : out.invalidBody;
      req.unpipe(p);
      req.resume();
      finish();
    });
    p.on('end', () => {
      if (depth === 0) out.invalidBody = 'The body must be a JSON object';
      finish();
    });
    req.on('end', () => (ended = true));
    req.on('aborted', () => {
      out.aborted = true;
      finish();
    });
    req.on('close', () => {
      if (!ended) {
        out.aborted = true;
        finish();
      }
    });
    req.pipe(p);
  });
}
