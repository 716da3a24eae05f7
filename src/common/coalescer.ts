/** What a batch did with each request: its result, or LEFT_OUT (the request is run alone afterwards). */
export const LEFT_OUT = Symbol('left out of the batch');
export type BatchAnswer<Res> = Res | typeof LEFT_OUT;

export interface CoalescerOptions<Req, Res> {
  /** Writes many requests at once (one unit of work); one answer per request, in order. */
  batch(reqs: Req[]): Promise<BatchAnswer<Res>[]>;
  /** Writes one request the ordinary way: a batch of one, one left out, and every request of a failed batch. */
  one(req: Req): Promise<Res>;
  /** Rows (or any measure) a request adds to a batch; a batch is closed when the next would pass `maxWeight`. */
  weight?(req: Req): number;
  maxWeight: number;
  /** Batches written at the same time (while they run, new requests wait and go together in the next). */
  maxInFlight: number;
  /**
   * True when the request must be written now and alone (`one`), not queued: its caller holds an open
   * unit of work the request has to join (a batch runs in a unit of its own).
   */
  alone?(): boolean;
}

interface Waiting<Req, Res> {
  req: Req;
  resolve(res: Res): void;
  reject(err: unknown): void;
}

/**
 * Smart batching ("group commit"): requests are queued; whenever fewer than `maxInFlight` batches
 * are being written, the queue (up to `maxWeight`) is written as one batch. So one request alone is
 * written at once, and many arriving together (hundreds of jobs' windows) are written by a few
 * statements instead of a few each. A batch that fails as a whole (a conflict it cannot place on one
 * request, a deadlock) rolled back everything it did: each of its requests is then written alone,
 * and only the ones that fail alone fail.
 */
export class Coalescer<Req, Res> {
  private readonly queue: Waiting<Req, Res>[] = [];
  private inFlight = 0;
  private scheduled = false;
  /** Requests written and batches written (benchmarks report the mean batch size). */
  readonly stats = { requests: 0, batches: 0 };

  constructor(private readonly o: CoalescerOptions<Req, Res>) {}

  submit(req: Req): Promise<Res> {
    if (this.o.alone?.()) return this.o.one(req);
    return new Promise<Res>((resolve, reject) => {
      this.queue.push({ req, resolve, reject });
      this.schedule();
    });
  }

  /** Takes the queue on the next turn of the event loop, so requests made in the same turn go together. */
  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.o.maxInFlight || !this.queue.length) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.inFlight >= this.o.maxInFlight || !this.queue.length) return;
    this.inFlight++;
    try {
      await this.write(this.take());
    } finally {
      this.inFlight--;
      this.schedule();
    }
  }

  private take(): Waiting<Req, Res>[] {
    let weight = 0;
    let n = 0;
    while (n < this.queue.length) {
      const w = this.o.weight?.(this.queue[n].req) ?? 1;
      if (n > 0 && weight + w > this.o.maxWeight) break;
      weight += w;
      n++;
    }
    return this.queue.splice(0, n);
  }

  private async write(batch: Waiting<Req, Res>[]): Promise<void> {
    this.stats.requests += batch.length;
    this.stats.batches++;
    if (batch.length === 1) return this.alone(batch[0]);
    let answers: BatchAnswer<Res>[];
    try {
      answers = await this.o.batch(batch.map((b) => b.req));
    } catch {
      // Rolled back as a whole: each request on its own (the ones that fail alone report their error).
      await Promise.all(batch.map((b) => this.alone(b)));
      return;
    }
    const left: Waiting<Req, Res>[] = [];
    batch.forEach((b, i) => {
      const a = answers[i];
      if (a === LEFT_OUT) left.push(b);
      else b.resolve(a);
    });
    await Promise.all(left.map((b) => this.alone(b)));
  }

  private async alone(b: Waiting<Req, Res>): Promise<void> {
    try {
      b.resolve(await this.o.one(b.req));
    } catch (err) {
      b.reject(err);
    }
  }
}
