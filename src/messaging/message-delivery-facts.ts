import { Injectable } from '@nestjs/common';
import type { AccountId } from '../common/account-id';
import { inList, query, sql, type Query, type Row, numOrNull, str } from '../database/sql';
import { UnitOfWork } from '../database/unit-of-work';

/** What a report shows of a message beside the row that made it (bulk's rows report and its CSV). */
export interface DeliveryFacts {
  id: string;
  accountId: string;
  encoding: string | null;
  segments: number | null;
  status: string;
  /** When a receipt said delivered (epoch ms). */
  deliveredAt: number | null;
}

/** Ids per statement (an export page holds up to 10,000 rows). */
const IDS_PER_READ = 2000;

function toDeliveryFacts(r: Row): DeliveryFacts {
  return {
    id: String(r.id),
    accountId: String(r.account_id),
    encoding: str(r.encoding),
    segments: numOrNull(r.segments),
    status: String(r.status),
    deliveredAt: numOrNull(r.delivered_at),
  };
}

export const deliveryFactsStatements = {
  /**
   * Messages by primary key (a report page's worth). The account is checked on each row in code: a
   * condition on account_id lets the planner pick the account's index and walk every message of the account.
   */
  of: (ids: string[]): Query<DeliveryFacts> =>
    query(
      toDeliveryFacts,
      sql(
        `SELECT id, account_id, encoding, segments, status, delivered_at FROM messages WHERE id IN (${inList(ids.length)})`,
        ...ids,
      ),
    ),
};

/** Delivery facts of an account's messages, read by primary key in one statement per page. */
@Injectable()
export class MessageDeliveryFacts {
  constructor(private readonly uow: UnitOfWork) {}

  /** The facts of those of `ids` that are `accountId`'s messages, by id. */
  async of(accountId: AccountId, ids: readonly string[]): Promise<Map<string, DeliveryFacts>> {
    const unique = [...new Set(ids)];
    if (!unique.length) return new Map();
    const out = new Map<string, DeliveryFacts>();
    for (let i = 0; i < unique.length; i += IDS_PER_READ)
      for (const f of await this.uow.read(deliveryFactsStatements.of(unique.slice(i, i + IDS_PER_READ))))
        if (f.accountId === accountId) out.set(f.id, f);
    return out;
  }
}
