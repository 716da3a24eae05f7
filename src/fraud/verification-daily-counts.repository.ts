import { Injectable } from '@nestjs/common';
import { insertOrAdd, query, Row, sql } from '../database/sql';
import { UnitOfWork } from '../database/unit-of-work';
import type { AccountId } from '../common/account-id';

/** One account's counts for one UTC day. */
export interface DailyCountRecord {
  /** 'YYYY-MM-DD' (UTC). */
  day: string;
  sent: number;
  verified: number;
}

/** The one mapping of a verification_daily_counts row. */
function toDailyCount(r: Row): DailyCountRecord {
  return { day: String(r.day), sent: Number(r.sent), verified: Number(r.verified) };
}

/** The `verification_daily_counts` table; every method takes the owning account id. */
@Injectable()
export class VerificationDailyCountsRepository {
  constructor(private readonly uow: UnitOfWork) {}

  /** Adds to the account's counters of `day` (creating its row), in one statement. */
  async add(accountId: AccountId, day: string, sent: number, verified: number): Promise<void> {
    await this.uow.run(
      insertOrAdd(this.uow.capabilities.upsert, 'verification_daily_counts', [
        { keys: { account_id: accountId, day }, adds: { sent, verified } },
      ]),
    );
  }

  /** The account's days from `first` to `last` (inclusive) that have a row, oldest first. */
  async between(accountId: AccountId, first: string, last: string): Promise<DailyCountRecord[]> {
    return this.uow.read(
      query(
        toDailyCount,
        sql(
          'SELECT day, sent, verified FROM verification_daily_counts WHERE account_id = ? AND day >= ? AND day <= ? ORDER BY day',
          accountId,
          first,
          last,
        ),
      ),
    );
  }
}
