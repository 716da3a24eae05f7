/**
 * Incremental scanner of a bulk body `{ ..., "messages": [ {...}, {...} ], ... }`. It finds the text of
 * each top-level value and of each element of `messages` without building a token stream, and hands
 * the text to JSON.parse (which checks it): several times faster than a token-level parser, and the
 * element text is kept as the stored payload. Memory: at most one element plus one chunk.
 */
export interface ScanSink {
  /** Text of one element of `messages`; may return a promise (the scanner waits for it). */
  element(text: string): void | Promise<void>;
  /** Text of a top-level value other than `messages` (or of `messages` when not an array). */
  field(key: string, text: string): void;
  messagesArray(): void;
}

export class ScanError extends Error {}

type Mode = 'start' | 'key' | 'colon' | 'messagesValue' | 'value' | 'afterValue' | 'elemStart' | 'elem' | 'afterElem' | 'end';

const WS = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

export class JsonBodyScanner {
  private buf = '';
  private pos = 0;
  private mode: Mode = 'start';
  private key = '';
  private first = true;
  // Value scan state (survives chunk boundaries).
  private vStart = -1;
  private depth = 0;
  private inStr = false;
  private scalar = false;

  constructor(private readonly sink: ScanSink) {}

  /** Consumes what it can; returns a promise when the sink asked to wait (call `resume` after it). */
  write(chunk: string): Promise<void> | null {
    if (this.pos > 65536 && (this.vStart === -1 || this.vStart > 65536)) {
      const cut = this.vStart === -1 ? this.pos : Math.min(this.pos, this.vStart);
      this.buf = this.buf.slice(cut);
      this.pos -= cut;
      if (this.vStart !== -1) this.vStart -= cut;
    }
    this.buf += chunk;
    return this.pump(false);
  }

  resume(): Promise<void> | null {
    return this.pump(false);
  }

  end(): void {
    if (this.mode === 'value' || this.mode === 'elem') void this.pump(true);
    this.skipWs();
    if (this.mode !== 'end' || this.pos < this.buf.length) throw new ScanError(this.mode === 'start' ? 'The body must be a JSON object' : 'The body is not valid JSON (unexpected end)');
  }

  private skipWs(): void {
    while (this.pos < this.buf.length && WS(this.buf.charCodeAt(this.pos))) this.pos++;
  }

  private pump(final: boolean): Promise<void> | null {
    for (;;) {
      if (this.mode !== 'value' && this.mode !== 'elem') this.skipWs();
      if (this.pos >= this.buf.length && !final) return null;
      const c = this.buf.charCodeAt(this.pos);
      switch (this.mode) {
        case 'start':
          if (c !== 0x7b) throw new ScanError('The body must be a JSON object');
          this.pos++;
          this.mode = 'key';
          this.first = true;
          break;
        case 'key': {
          if (c === 0x7d && this.first) {
            this.pos++;
            this.mode = 'end';
            break;
          }
          if (c !== 0x22) throw new ScanError('The body is not valid JSON (expected a key)');
          const close = this.unescapedQuote(this.pos + 1);
          if (close === -1) return null;
          this.key = JSON.parse(this.buf.slice(this.pos, close + 1)) as string;
          this.pos = close + 1;
          this.mode = 'colon';
          this.first = false;
          break;
        }
        case 'colon':
          if (c !== 0x3a) throw new ScanError('The body is not valid JSON (expected ":")');
          this.pos++;
          this.mode = this.key === 'messages' ? 'messagesValue' : 'value';
          this.vStart = -1;
          break;
        case 'messagesValue':
          if (c === 0x5b) {
            this.pos++;
            this.sink.messagesArray();
            this.mode = 'elemStart';
          } else {
            this.mode = 'value';
            this.vStart = -1;
          }
          break;
        case 'value':
        case 'elem': {
          const text = this.scanValue(final);
          if (text === null) return null;
          if (this.mode === 'value') {
            this.sink.field(this.key, text);
            this.mode = 'afterValue';
          } else {
            this.mode = 'afterElem';
            const wait = this.sink.element(text);
            if (wait) return wait;
          }
          break;
        }
        case 'afterValue':
          if (c === 0x2c) this.mode = 'key';
          else if (c === 0x7d) this.mode = 'end';
          else throw new ScanError('The body is not valid JSON (expected "," or "}")');
          this.pos++;
          break;
        case 'elemStart':
          if (c === 0x5d) {
            this.pos++;
            this.mode = 'afterValue';
            break;
          }
          this.mode = 'elem';
          this.vStart = -1;
          break;
        case 'afterElem':
          if (c === 0x2c) this.mode = 'elem';
          else if (c === 0x5d) this.mode = 'afterValue';
          else throw new ScanError('The body is not valid JSON (expected "," or "]")');
          this.vStart = -1;
          this.pos++;
          break;
        case 'end':
          throw new ScanError('The body is not valid JSON (data after the object)');
      }
      if (final && this.pos >= this.buf.length) return null;
    }
  }

  /** Text of one complete JSON value starting at pos (whitespace skipped), or null (need more). */
  private scanValue(final: boolean): string | null {
    const b = this.buf;
    if (this.vStart === -1) {
      this.skipWs();
      if (this.pos >= b.length) return null;
      this.vStart = this.pos;
      this.depth = 0;
      this.inStr = false;
      const c = b.charCodeAt(this.pos);
      this.scalar = c !== 0x7b && c !== 0x5b && c !== 0x22;
    }
    let i = this.pos;
    if (this.scalar) {
      while (i < b.length) {
        const c = b.charCodeAt(i);
        if (c === 0x2c || c === 0x7d || c === 0x5d || WS(c)) break;
        i++;
      }
      if (i >= b.length && !final) {
        this.pos = i;
        return null;
      }
      return this.take(i);
    }
    for (; i < b.length; i++) {
      if (this.inStr) {
        // Jump to the closing quote (most of an element is string content).
        const q = this.unescapedQuote(i);
        if (q === -1) {
          i = b.length;
          break;
        }
        i = q;
        this.inStr = false;
        if (this.depth === 0) return this.take(i + 1);
        continue;
      }
      const c = b.charCodeAt(i);
      if (c === 0x22) this.inStr = true;
      else if (c === 0x7b || c === 0x5b) this.depth++;
      else if (c === 0x7d || c === 0x5d) {
        if (--this.depth === 0) return this.take(i + 1);
        if (this.depth < 0) throw new ScanError('The body is not valid JSON');
      }
    }
    this.pos = i;
    if (final) throw new ScanError('The body is not valid JSON (unexpected end)');
    return null;
  }

  /**
   * Index of the next quote at or after `from` that is not escaped, or -1 (need more). The
   * backslashes before a quote are counted back to the string's opening quote, which is still in
   * the buffer, so a chunk boundary inside an escape is safe.
   */
  private unescapedQuote(from: number): number {
    const b = this.buf;
    for (let i = from; ; ) {
      const q = b.indexOf('"', i);
      if (q === -1) return -1;
      let bs = 0;
      for (let k = q - 1; b.charCodeAt(k) === 0x5c; k--) bs++;
      if (bs % 2 === 0) return q;
      i = q + 1;
    }
  }

  private take(end: number): string {
    const text = this.buf.slice(this.vStart, end);
    this.pos = end;
    this.vStart = -1;
    if (!text.length) throw new ScanError('The body is not valid JSON (missing value)');
    return text;
  }
}
