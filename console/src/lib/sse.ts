/** One server-sent event (comments are dropped). */
export interface SseEvent {
  event: string;
  data: string;
}

/**
 * Incremental text/event-stream parser: feed it decoded text as it arrives, get complete events back.
 * (EventSource cannot send the X-API-Key header, so the console reads the stream with fetch().)
 */
export class SseParser {
  private buf = '';
  private event = 'message';
  private data: string[] = [];

  push(text: string): SseEvent[] {
    this.buf += text;
    const out: SseEvent[] = [];
    let nl: number;
    while ((nl = this.buf.indexOf('\n')) >= 0) {
      const line = this.buf.slice(0, nl).replace(/\r$/, '');
      this.buf = this.buf.slice(nl + 1);
      if (line === '') {
        if (this.data.length) out.push({ event: this.event, data: this.data.join('\n') });
        this.event = 'message';
        this.data = [];
      } else if (line.startsWith('event:')) this.event = line.slice(6).trim();
      else if (line.startsWith('data:')) this.data.push(line.slice(5).replace(/^ /, ''));
      // `: ping` comments and other fields (id, retry) are not used here.
    }
    return out;
  }
}
