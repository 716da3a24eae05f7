/**
 * What a batch did with each request: its result, or LEFT_OUT (the batch could not place it: it is
 * written again, in a batch of its own).
 */
export const LEFT_OUT = Symbol('left out of the batch');
export type BatchAnswer<Res> = Res | typeof LEFT_OUT;

/**
 * Thrown by a batch that lost a conflict on some of its requests (another replica wrote their rows
 * first): the unit is undone, the batch is written again without them, and each of them is then
 * written in a batch of its own, which answers exactly what it could write.
 */
export class RetryWithout extends Error {
  constructor(
    readonly indexes: number[],
    reason: string,
  ) {
    super(reason);
  }
}

export interface CoalescerOptions<Req, Res> {
  /**
   * Writes requests in one unit of work; one answer per request, in order. A batch of one is a batch:
   * it may not leave its request out.
   */
  batch(reqs: Req[]): Promise<BatchAnswer<Res>[]>;
  /** Rows (or any measure) a request adds to a batch; a batch is closed when the next would pass `maxWeight`. */
  weight?(req: Req): number;
  maxWeight: number;
  /** Batches written at the same time (while they run, new requests wait and go together in the next). */
  maxInFlight: number;
  /**
   * True when the request must be written now and alone (a batch of one), not queued: its caller holds
   * an open unit of work the request has to join (a batch runs in the unit it finds).
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
 * written at once (a batch of one), and many arriving together (hundreds of jobs' windows) are
 * written by a few statements instead of a few each. There is one way to write: `batch`. A batch that
 * lost a conflict on some requests (RetryWithout) is written again without them; one that failed as a
 * whole otherwise (a deadlock) rolled back everything it did, and each of its requests is written in
 * a batch of its own, so only the ones that fail alone fail.
 */
export class Coalescer<Req, Res> {
  private readonly queue: Waiting<Req, Res>[] = [];
  private inFlight = 0;
  private scheduled = false;
  /** Requests written and batches written (benchmarks report the mean batch size). */
  readonly stats = { requests: 0, batches: 0 };

  constructor(private readonly o: CoalescerOptions<Req, Res>) {}

  submit(req: Req): Promise<Res> {
    if (this.o.alone?.()) return this.single(req);
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
      const batch = this.take();
      this.stats.requests += batch.length;
      this.stats.batches++;
      await this.write(batch);
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

  /** A batch of one, outside the queue. */
  private async single(req: Req): Promise<Res> {
    const [answer] = await this.o.batch([req]);
    if (answer === LEFT_OUT) throw new Error('A batch of one left its request out');
    return answer;
  }

  private async write(batch: Waiting<Req, Res>[]): Promise<void> {
    if (batch.length === 1) {
      const [b] = batch;
      return this.single(b.req).then(b.resolve, b.reject);
    }
    let answers: BatchAnswer<Res>[];
    try {
      answers = await this.o.batch(batch.map((b) => b.req));
    } catch (err) {
      const lost = err instanceof RetryWithout ? new Set(err.indexes) : null;
      if (lost && lost.size > 0 && lost.size < batch.length) {
        await this.write(batch.filter((_, i) => !lost.has(i)));
        await Promise.all(batch.filter((_, i) => lost.has(i)).map((b) => this.write([b])));
        return;
      }
      // Rolled back as a whole: each request on its own (the ones that fail alone report their error).
      await Promise.all(batch.map((b) => this.write([b])));
      return;
    }
    const left: Waiting<Req, Res>[] = [];
    batch.forEach((b, i) => {
      const a = answers[i];
      if (a === LEFT_OUT) left.push(b);
      else b.resolve(a);
    });
    await Promise.all(left.map((b) => this.write([b])));
  }
}
