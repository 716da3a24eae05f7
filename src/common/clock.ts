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
}
