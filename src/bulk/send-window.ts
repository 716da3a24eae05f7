import type { Clock } from '../common/clock';
import type { PacerStop, SendPacer } from '../messaging/window-sender';

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

/** What the pacer asks its job before each provider call (the job, not the pacer, renews its lease). */
export interface PacerChecks {
  /** The replica is shutting down: no new call starts (the call in flight has ended). */
  stopping(): boolean;
  /**
   * The job's lease outlasts the next call (the runner renews it when it runs short); false: another
   * replica took the job, and the window stops before the call.
   */
  keepLease(): Promise<boolean>;
}

export interface PacerOptions {
  /** Calls of a window in flight at once (at most `perSecond`). */
  lanes?: number;
}

/**
 * One job's pacer (a SendPacer for WindowSender): waits on the clock until the sliding window lets
 * the next call start at `perSecond`, and stops the window for shutdown or when the job no longer
 * holds its lease (`lease_lost`: another replica may hold the job). With `lanes` > 1 that many calls of a window
 * may be in flight at once; a call in flight counts as if it had completed now, so a call starts
 * only when the calls completed in the last second plus those in flight are fewer than `perSecond`.
 * Then no one-second window holds more than `perSecond` calls at the provider either: of the calls
 * it sees in a window, the last to start found every other one in flight or completed within the
 * second before its start.
 */
export class WindowPacer implements SendPacer {
  readonly lanes: number;
  private inFlight = 0;

  constructor(
    private readonly clock: Clock,
    private readonly window: SendWindow,
    private readonly perSecond: number,
    private readonly checks: PacerChecks,
    opts: PacerOptions = {},
  ) {
    this.lanes = Math.max(1, Math.min(opts.lanes ?? 1, perSecond));
  }

  async before(): Promise<PacerStop | null> {
    for (;;) {
      if (this.checks.stopping()) return 'shutting_down';
      const wait = this.window.waitMs(this.clock.now(), this.perSecond - this.inFlight);
      if (wait === 0) break;
      await this.clock.sleep(wait);
    }
    // Counted before the await, so another lane's check sees this call.
    this.inFlight++;
    if (await this.checks.keepLease()) return null;
    this.inFlight--;
    return 'lease_lost';
  }

  after(): void {
    this.inFlight--;
    this.window.record(this.clock.now());
  }

  cancel(): void {
    this.inFlight--;
  }
}
