/**
 * Sliding one-second window of one job's sends. A send is counted at its completion time, and the
 * next one may start only when fewer than `limit` sends completed in the last `windowMs`: since a
 * provider sees a message between start and completion, any one-second window at the provider
 * then holds at most `limit` messages too.
 */
export class SendWindow {
  private readonly times: number[] = [];

  constructor(private readonly windowMs = 1000) {}

  record(at: number): void {
    this.times.push(at);
    if (this.times.length > 64) this.times.splice(0, this.times.length - 64);
  }

  /** Milliseconds to wait before the next send may start (0 = now). */
  waitMs(now: number, limit: number): number {
    if (this.times.length < limit) return 0;
    const oldest = this.times[this.times.length - limit];
    return Math.max(0, oldest + this.windowMs - now + 1);
  }
}
