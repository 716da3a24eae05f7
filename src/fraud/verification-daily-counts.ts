import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { VerificationDailyCountsRepository } from './verification-daily-counts.repository';
import type { AccountId } from '../common/account-id';

const DAY_MS = 86_400_000;

/** 'YYYY-MM-DD' of the UTC day `at` (epoch ms) falls in. */
export const utcDay = (at: number): string => new Date(at).toISOString().slice(0, 10);

/** One day of the chart: codes sent that day, and how many of those were verified (at any time since). */
export interface DailyVerificationCount {
  date: string;
  sent: number;
  verified: number;
}

/**
 * Codes sent and verified per account and UTC day, kept after verification rows are purged. A
 * verification counts on the day its code was sent, so a day's verified/sent is its conversion.
 */
@Injectable()
export class VerificationDailyCounts {
  constructor(
    private readonly rows: VerificationDailyCountsRepository,
    private readonly clock: Clock,
  ) {}

  async countSent(accountId: AccountId, at: number): Promise<void> {
    await this.rows.add(accountId, utcDay(at), 1, 0);
  }

  async countVerified(accountId: AccountId, sentAt: number): Promise<void> {
    await this.rows.add(accountId, utcDay(sentAt), 0, 1);
  }

  /** The last `days` UTC days, oldest first, today last; days without a code are zeros. */
  async lastDays(accountId: AccountId, days: number): Promise<DailyVerificationCount[]> {
    const today = Date.parse(utcDay(this.clock.now()));
    const dates = Array.from({ length: days }, (_, i) => utcDay(today - (days - 1 - i) * DAY_MS));
    const found = new Map(
      (await this.rows.between(accountId, dates[0], dates[dates.length - 1])).map((r) => [r.day, r]),
    );
    return dates.map((date) => ({ date, sent: found.get(date)?.sent ?? 0, verified: found.get(date)?.verified ?? 0 }));
  }
}
