import { Clock } from './clock';

interface Sleeper {
  at: number;
  wake: () => void;
}

/**
 * A Clock for tests: time moves only when the test says so. `advance(ms)` moves it and wakes the
 * sleepers that are due, in order of their wake-up time. With `autoAdvance`, a sleep moves time to
 * the earliest wake-up once the code under test has nothing else to do (a macrotask later), so a
 * paced run of many seconds of clock time takes milliseconds of wall-clock time.
 */
export class FakeClock extends Clock {
  private t: number;
  private readonly sleepers: Sleeper[] = [];
  private readonly autoAdvance: boolean;

  constructor(opts: { start?: number; autoAdvance?: boolean } = {}) {
    super();
    this.t = opts.start ?? Date.UTC(2030, 0, 1);
    this.autoAdvance = opts.autoAdvance ?? false;
  }

  override now(): number {
    return this.t;
  }

  override sleep(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise<void>((wake) => {
      this.sleepers.push({ at: this.t + ms, wake });
      if (this.autoAdvance) setImmediate(() => this.advanceToNextSleeper());
    });
  }

  /** Moves time forward by `ms` (a provider call taking that long, say) and wakes who is due. */
  advance(ms: number): void {
    this.t += Math.max(0, ms);
    this.wakeDue();
  }

  /** Sleepers not woken yet. */
  get sleeping(): number {
    return this.sleepers.length;
  }

  private advanceToNextSleeper(): void {
    if (!this.sleepers.length) return;
    this.t = Math.max(this.t, Math.min(...this.sleepers.map((s) => s.at)));
    this.wakeDue();
  }

  private wakeDue(): void {
    const due = this.sleepers.filter((s) => s.at <= this.t).sort((a, b) => a.at - b.at);
    for (const s of due) this.sleepers.splice(this.sleepers.indexOf(s), 1);
    for (const s of due) s.wake();
  }
}
