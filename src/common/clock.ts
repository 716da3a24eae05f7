import { Injectable } from '@nestjs/common';

/** Time comes through here so pacing, expiry and scheduling can be tested without sleeping. */
@Injectable()
export class Clock {
  now(): number {
    return Date.now();
  }
  date(): Date {
    return new Date(this.now());
  }
  /** Resolves once `ms` milliseconds of this clock's time have passed (at once for 0 or less). */
  async sleep(ms: number): Promise<void> {
    if (ms > 0) await new Promise<void>((resolve) => setTimeout(resolve, ms));
  }
}
