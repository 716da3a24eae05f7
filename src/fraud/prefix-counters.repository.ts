import { Injectable } from '@nestjs/common';
import { insertOrAdd, query, Query, Row, sql } from '../database/sql';
import { UnitOfWork } from '../database/unit-of-work';
import type { PrefixTally } from './fraud-verdict';
import { activeKey, PrefixCounters } from './prefix-counters';
import type { AccountId } from '../common/account-id';

/** A row of the tally: kind 0 the window's counts, kind 1 a block in force (its id and end). */
export interface TallyRow {
  kind: number;
  sends: number;
  verified: number;
  fresh: number;
  id: string | null;
  untilAt: number;
}

/** The one mapping of a tally row (the counts' SUMs are NULL over no rows: 0). */
function toTallyRow(r: Row): TallyRow {
  return {
    kind: Number(r.kind),
    sends: Number(r.sends ?? 0),
    verified: Number(r.verified ?? 0),
    fresh: Number(r.fresh ?? 0),
    id: r.id === null ? null : String(r.id),
    untilAt: Number(r.until_at),
  };
}

/** The one read of a code's admission: the window's counts and the block in force (two index seeks). */
export function tallyStatement(accountId: AccountId, prefix: string, now: number, since: number): Query<TallyRow> {
  return query(
    toTallyRow,
    sql(
      `SELECT 0 AS kind, SUM(sends) AS sends, SUM(verified) AS verified,
            SUM(CASE WHEN minute = ? THEN new_numbers ELSE 0 END) AS fresh, NULL AS id, NULL AS until_at
       FROM fraud_prefix_counters WHERE account_id = ? AND prefix = ? AND minute >= ?
     UNION ALL
     SELECT 1, 0, 0, 0, id, until_at FROM fraud_blocks WHERE active_key IN (?, ?) AND until_at > ?`,
      Math.floor(now / 60_000),
      accountId,
      prefix,
      since,
      activeKey(accountId, prefix),
      activeKey(null, prefix),
      now,
    ),
  );
}

/**
 * The counters in the database (no REDIS_URL): rows of fraud_prefix_counters, and the block in force
 * read from fraud_blocks by its active key, both in one statement (two primary/unique index seeks).
 */
@Injectable()
export class PrefixCountersRepository implements PrefixCounters {
  constructor(private readonly uow: UnitOfWork) {}

  async admit(
    accountId: AccountId,
    prefix: string,
    now: number,
    since: number,
    newRecipient: boolean,
  ): Promise<PrefixTally> {
    const tally = await this.read(accountId, prefix, now, since);
    await this.countSend(accountId, prefix, Math.floor(now / 60_000), newRecipient);
    return tally;
  }

  async uncount(accountId: AccountId, prefix: string, minute: number, newRecipient: boolean): Promise<void> {
    await this.uow.exec(
      sql(
        'UPDATE fraud_prefix_counters SET sends = sends - 1, new_numbers = new_numbers - ? WHERE account_id = ? AND prefix = ? AND minute = ? AND sends > 0',
        newRecipient ? 1 : 0,
        accountId,
        prefix,
        minute,
      ),
    );
  }

  private async read(accountId: AccountId, prefix: string, now: number, since: number): Promise<PrefixTally> {
    const rows = await this.uow.read(tallyStatement(accountId, prefix, now, since));
    const counts = rows.find((r) => r.kind === 0);
    const blocks = rows.filter((r) => r.kind === 1 && r.id !== null);
    // Of two blocks in force (the account's and the platform's), the one that lasts longer answers.
    const block = blocks.sort((a, b) => b.untilAt - a.untilAt)[0];
    return {
      sends: counts?.sends ?? 0,
      verified: counts?.verified ?? 0,
      newThisMinute: counts?.fresh ?? 0,
      block: block ? { id: String(block.id), until: block.untilAt } : null,
    };
  }

  private async countSend(accountId: AccountId, prefix: string, minute: number, newRecipient: boolean): Promise<void> {
    await this.uow.run(
      insertOrAdd(this.uow.capabilities.upsert, 'fraud_prefix_counters', [
        { keys: { account_id: accountId, prefix, minute }, adds: { sends: 1, new_numbers: newRecipient ? 1 : 0 } },
      ]),
    );
  }

  async countVerified(accountId: AccountId, prefix: string, minute: number): Promise<void> {
    // No row: its minute left the window (or a lift reset the prefix), and its send no longer counts either.
    await this.uow.exec(
      sql(
        'UPDATE fraud_prefix_counters SET verified = verified + 1 WHERE account_id = ? AND prefix = ? AND minute = ?',
        accountId,
        prefix,
        minute,
      ),
    );
  }

  async reset(accountId: AccountId, prefix: string): Promise<void> {
    await this.uow.exec(
      sql('DELETE FROM fraud_prefix_counters WHERE account_id = ? AND prefix = ?', accountId, prefix),
    );
  }

  async markBlocked(): Promise<void> {}

  async unmarkBlocked(): Promise<void> {}

  async prune(beforeMinute: number): Promise<number> {
    return this.uow.exec(sql('DELETE FROM fraud_prefix_counters WHERE minute < ?', beforeMinute));
  }
}
