import { StringDecoder } from 'node:string_decoder';

/** One line of the body: its number (1-based) and its first column, trimmed; null when the line was too long. */
export interface CsvLine {
  line: number;
  value: string | null;
}

/**
 * Splits a streamed body into lines as chunks arrive (LF or CRLF, UTF-8 split anywhere, a leading
 * BOM dropped) and keeps only each line's first column, unquoted. A line longer than `maxChars` is
 * not buffered: the rest of it is skipped and it comes out with `value: null`, so memory stays
 * bounded whatever the body holds. Blank lines are not reported.
 */
export class CsvFirstColumn {
  private readonly decoder = new StringDecoder('utf8');
  private partial = '';
  private overlong = false;
  private lineNo = 0;
  private started = false;

  constructor(private readonly maxChars = 256) {}

  push(chunk: Buffer | string): CsvLine[] {
    let text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const out: CsvLine[] = [];
    let from = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
      this.take(text.slice(from, nl), true, out);
      from = nl + 1;
    }
    this.take(text.slice(from), false, out);
    return out;
  }

  end(): CsvLine[] {
    const out: CsvLine[] = [];
    this.take(this.decoder.end(), false, out);
    if (this.partial.length > 0 || this.overlong) this.emit(out);
    return out;
  }

  private take(piece: string, complete: boolean, out: CsvLine[]): void {
    if (!this.overlong) {
      this.partial += piece;
      if (this.partial.length > this.maxChars) {
        this.overlong = true;
        this.partial = '';
      }
    }
    if (complete) this.emit(out);
  }

  private emit(out: CsvLine[]): void {
    this.lineNo++;
    const raw = this.partial;
    const overlong = this.overlong;
    this.partial = '';
    this.overlong = false;
    if (overlong) return void out.push({ line: this.lineNo, value: null });
    const value = firstColumn(raw);
    if (value !== '') out.push({ line: this.lineNo, value });
  }
}

/** The first field of a CSV record (`"+9665...",x` -> `+9665...`), trimmed. */
function firstColumn(raw: string): string {
  const line = raw.trim();
  if (line.startsWith('"')) {
    const close = line.indexOf('"', 1);
    return (close === -1 ? line.slice(1) : line.slice(1, close)).trim();
  }
  const comma = line.search(/[,;\t]/);
  return (comma === -1 ? line : line.slice(0, comma)).trim();
}
