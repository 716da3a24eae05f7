import { tooDeepMessage } from '../common/json-depth';

/**
 * Incremental scanner of a bulk body `{ ..., "messages": [ {...}, {...} ], ... }`. It finds the text of
 * each top-level value and of each element of `messages` without building a token stream, and hands
 * the text to JSON.parse (which checks it): several times faster than a token-level parser, and the
 * element text is kept as the stored payload.
 *
 * Linear: every byte is examined once. The scan state (depth, inside a string, after a backslash)
 * is carried across chunks, and a value's bytes are kept as the chunks' own slices, joined once when
 * the value ends; nothing already scanned is scanned again. Memory: one value (at most
 * `maxValueBytes`) plus one chunk. Structural bytes are ASCII and never occur inside a UTF-8
 * multi-byte sequence, so scanning bytes is exact; a value is decoded once, whole.
 */
export interface ScanSink {
  /** Text of one element of `messages`; may return a promise (the scanner waits for it). */
  element(text: string): void | Promise<void>;
  /** Text of a top-level value other than `messages` (or of `messages` when not an array). */
  field(key: string, text: string): void;
  messagesArray(): void;
}

export interface ScanLimits {
  /** Largest element, key or top-level value, in bytes. */
  maxValueBytes: number;
  /** Deepest nesting; the body object is level 1, `messages` level 2, an element level 3. */
  maxDepth: number;
}

/** The body is not JSON, not an object, or nested too deep. */
export class ScanError extends Error {}

/** One value passed `maxValueBytes`: the scanner stops at once (`element` says whether it was a message). */
export class ValueTooLargeError extends Error {
  constructor(
    message: string,
    readonly element: boolean,
  ) {
    super(message);
  }
}

type Mode =
  'start' | 'key' | 'colon' | 'messagesValue' | 'value' | 'afterValue' | 'elemStart' | 'elem' | 'afterElem' | 'end';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const WS = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const EMPTY = Buffer.alloc(0);
/** `indexOf` cache: not looked up yet in this chunk. (-1: none left in this chunk.) */
const UNKNOWN = -2;

export class JsonBodyScanner {
  /** Bytes examined so far (each at most once): lets a test check the scan is linear. */
  examined = 0;
  private chunk: Buffer = EMPTY;
  private pos = 0;
  private mode: Mode = 'start';
  private key = '';
  private first = true;
  private elements = 0;
  // The value being collected (survives chunk boundaries).
  private collecting = false;
  private pieces: Buffer[] = [];
  private size = 0;
  private depth = 0;
  private inStr = false;
  private escaped = false;
  private scalar = false;
  // Next quote / backslash at or after the scan position in this chunk (found once, reused).
  private nextQuote = UNKNOWN;
  private nextBackslash = UNKNOWN;

  constructor(
    private readonly sink: ScanSink,
    private readonly limits: ScanLimits = { maxValueBytes: Number.MAX_SAFE_INTEGER, maxDepth: Number.MAX_SAFE_INTEGER },
  ) {}

  /**
   * Consumes what it can of `chunk`; returns a promise when the sink asked to wait (call `resume`
   * after it, before the next `write`).
   */
  write(chunk: Buffer | string): Promise<void> | null {
    if (this.pos < this.chunk.length) throw new Error('write() before the previous chunk was consumed');
    this.chunk = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    this.pos = 0;
    this.nextQuote = UNKNOWN;
    this.nextBackslash = UNKNOWN;
    return this.pump();
  }

  resume(): Promise<void> | null {
    return this.pump();
  }

  /** The body ended: it must have been one complete object. */
  end(): void {
    if (this.mode !== 'end')
      throw new ScanError(
        this.mode === 'start' ? 'The body must be a JSON object' : 'The body is not valid JSON (unexpected end)',
      );
  }

  private skipWs(): void {
    const b = this.chunk;
    const from = this.pos;
    while (this.pos < b.length && WS(b[this.pos])) this.pos++;
    this.examined += this.pos - from;
  }

  private pump(): Promise<void> | null {
    for (;;) {
      if (!this.collecting) this.skipWs();
      if (this.pos >= this.chunk.length) return null;
      const c = this.chunk[this.pos];
      switch (this.mode) {
        case 'start':
          if (c !== 0x7b) throw new ScanError('The body must be a JSON object');
          this.step();
          this.mode = 'key';
          this.first = true;
          break;
        case 'key': {
          if (!this.collecting && c === 0x7d && this.first) {
            this.step();
            this.mode = 'end';
            break;
          }
          if (!this.collecting && c !== QUOTE) throw new ScanError('The body is not valid JSON (expected a key)');
          const text = this.scanValue(1, 'A key');
          if (text === null) return null;
          this.key = JSON.parse(text) as string;
          this.mode = 'colon';
          this.first = false;
          break;
        }
        case 'colon':
          if (c !== 0x3a) throw new ScanError('The body is not valid JSON (expected ":")');
          this.step();
          this.mode = this.key === 'messages' ? 'messagesValue' : 'value';
          break;
        case 'messagesValue':
          if (c === 0x5b) {
            this.step();
            this.checkDepth(2);
            this.sink.messagesArray();
            this.mode = 'elemStart';
          } else {
            this.mode = 'value';
          }
          break;
        case 'value': {
          const text = this.scanValue(1, `The value of "${this.key.slice(0, 50)}"`);
          if (text === null) return null;
          this.sink.field(this.key, text);
          this.mode = 'afterValue';
          break;
        }
        case 'elem': {
          const text = this.scanValue(2, `messages[${this.elements}]`);
          if (text === null) return null;
          this.elements++;
          this.mode = 'afterElem';
          const wait = this.sink.element(text);
          if (wait) return wait;
          break;
        }
        case 'afterValue':
          if (c === 0x2c) this.mode = 'key';
          else if (c === 0x7d) this.mode = 'end';
          else throw new ScanError('The body is not valid JSON (expected "," or "}")');
          this.step();
          break;
        case 'elemStart':
          if (c === 0x5d) {
            this.step();
            this.mode = 'afterValue';
          } else {
            this.mode = 'elem';
          }
          break;
        case 'afterElem':
          if (c === 0x2c) this.mode = 'elem';
          else if (c === 0x5d) this.mode = 'afterValue';
          else throw new ScanError('The body is not valid JSON (expected "," or "]")');
          this.step();
          break;
        case 'end':
          throw new ScanError('The body is not valid JSON (data after the object)');
      }
    }
  }

  private step(): void {
    this.pos++;
    this.examined++;
  }

  private checkDepth(level: number): void {
    if (level > this.limits.maxDepth) throw new ScanError(tooDeepMessage(this.limits.maxDepth));
  }

  /**
   * Scans on from `pos` through the value being collected (started here when none is). Returns its
   * text once it ended, or null at the end of the chunk (its part is kept; the next chunk goes on).
   * `level`: nesting of the value's container (1: the body object, 2: `messages`).
   */
  private scanValue(level: number, what: string): string | null {
    const b = this.chunk;
    const from = this.pos;
    if (!this.collecting) {
      this.collecting = true;
      this.depth = 0;
      this.inStr = false;
      this.escaped = false;
      const c = b[from];
      this.scalar = c !== 0x7b && c !== 0x5b && c !== QUOTE;
    }
    let i = from;
    let end = -1;
    if (this.scalar) {
      while (i < b.length) {
        const c = b[i];
        if (c === 0x2c || c === 0x7d || c === 0x5d || WS(c)) break;
        i++;
      }
      if (i < b.length) end = i;
    } else {
      while (i < b.length) {
        if (this.inStr) {
          if (this.escaped) {
            this.escaped = false;
            i++;
            continue;
          }
          const q = this.find(QUOTE, i);
          const bs = this.find(BACKSLASH, i);
          if (bs !== -1 && (q === -1 || bs < q)) {
            // The byte after a backslash is escaped, even when it comes in the next chunk.
            this.escaped = true;
            i = bs + 1;
            continue;
          }
          if (q === -1) {
            i = b.length;
            break;
          }
          i = q + 1;
          this.inStr = false;
          if (this.depth === 0) {
            end = i;
            break;
          }
          continue;
        }
        const c = b[i++];
        if (c === QUOTE) this.inStr = true;
        else if (c === 0x7b || c === 0x5b) this.checkDepth(level + ++this.depth);
        else if (c === 0x7d || c === 0x5d) {
          if (--this.depth === 0) {
            end = i;
            break;
          }
          if (this.depth < 0) throw new ScanError('The body is not valid JSON');
        }
      }
    }
    const stop = end === -1 ? b.length : end;
    this.examined += stop - from;
    this.size += stop - from;
    if (this.size > this.limits.maxValueBytes)
      throw new ValueTooLargeError(`${what} is larger than ${this.limits.maxValueBytes} bytes`, level === 2);
    this.pos = stop;
    if (from < stop) this.pieces.push(b.subarray(from, stop));
    if (end === -1) return null;
    const text = (this.pieces.length === 1 ? this.pieces[0] : Buffer.concat(this.pieces, this.size)).toString('utf8');
    this.pieces = [];
    this.size = 0;
    this.collecting = false;
    if (!text.length) throw new ScanError('The body is not valid JSON (missing value)');
    return text;
  }

  /** Next `byte` at or after `from` in this chunk, or -1; looked up once per occurrence (linear overall). */
  private find(byte: number, from: number): number {
    const cached = byte === QUOTE ? this.nextQuote : this.nextBackslash;
    if (cached === -1 || cached >= from) return cached;
    const found = this.chunk.indexOf(byte, from);
    if (byte === QUOTE) this.nextQuote = found;
    else this.nextBackslash = found;
    return found;
  }
}
