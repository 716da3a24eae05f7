import { Injectable } from '@nestjs/common';
import { caseOf, inList, query, Row, sql } from '../database/sql';
import { Tx, UnitOfWork } from '../database/unit-of-work';
import { AccountId, accountIdOf } from '../common/account-id';

/** An enabled endpoint as the fan-out needs it. */
export interface Subscription {
  id: string;
  accountId: AccountId;
  url: string;
  events: string[];
}

/** An endpoint as a send needs it: its status and sealed secrets. */
export interface EndpointKeys {
  id: string;
  status: string;
  sealedSecret: string;
  previousSealedSecret: string | null;
  previousSecretExpiresAt: number | null;
}

function toSubscription(r: Row): Subscription {
  return {
    id: String(r.id),
    accountId: accountIdOf(String(r.account_id)),
    url: String(r.url),
    events: parseEvents(String(r.events)),
  };
}

function toEndpointKeys(r: Row): EndpointKeys {
  return {
    id: String(r.id),
    status: String(r.status),
    sealedSecret: String(r.sealed_secret),
    previousSealedSecret: r.previous_sealed_secret === null ? null : String(r.previous_sealed_secret),
    previousSecretExpiresAt: r.previous_secret_expires_at === null ? null : Number(r.previous_secret_expires_at),
  };
}

/** The statements over event endpoints that the fan-out and the delivery loop run in bulk. */
@Injectable()
export class EventEndpointsRepository {
  constructor(private readonly uow: UnitOfWork) {}

  /** Enabled endpoints of these accounts (one read, in `tx` when given). */
  async enabledOf(tx: Tx | null, accountIds: readonly AccountId[]): Promise<Subscription[]> {
    if (!accountIds.length) return [];
    const q = query(
      toSubscription,
      sql(
        `SELECT id, account_id, url, events FROM webhook_event_endpoints WHERE account_id IN (${inList(accountIds.length)}) AND status = 'enabled'`,
        ...accountIds,
      ),
    );
    return tx ? tx.read(q) : this.uow.read(q);
  }

  /** Keys of these endpoints, across accounts (the delivery loop's rows name them). Missing = deleted. */
  async keysOfAny(ids: readonly string[]): Promise<Map<string, EndpointKeys>> {
    if (!ids.length) return new Map();
    const keys = await this.uow.read(
      query(
        toEndpointKeys,
        sql(
          `SELECT id, status, sealed_secret, previous_sealed_secret, previous_secret_expires_at FROM webhook_event_endpoints WHERE id IN (${inList(ids.length)})`,
          ...ids,
        ),
      ),
    );
    return new Map(keys.map((k) => [k.id, k]));
  }

  /**
   * Counts finished deliveries per endpoint (in the outcome write's unit): a delivered one resets the
   * count, failed ones add to it, and an endpoint that reaches `threshold` is disabled with `reason`.
   */
  async countOutcomes(
    tx: Tx,
    delivered: readonly string[],
    failed: ReadonlyMap<string, number>,
    threshold: number,
    reason: string,
    now: number,
  ): Promise<void> {
    if (delivered.length) {
      await tx.run(
        sql(
          `UPDATE webhook_event_endpoints SET consecutive_failures = 0 WHERE id IN (${inList(delivered.length)}) AND consecutive_failures <> 0`,
          ...delivered,
        ),
      );
    }
    if (!failed.size) return;
    const ids = [...failed.keys()];
    const add = caseOf('id', [...failed.entries()]);
    await tx.run(
      sql(
        `UPDATE webhook_event_endpoints SET consecutive_failures = consecutive_failures + ${add.sql} WHERE id IN (${inList(ids.length)})`,
        ...add.params,
        ...ids,
      ),
    );
    await tx.run(
      sql(
        `UPDATE webhook_event_endpoints SET status = 'disabled', disabled_reason = ?, updated_at = ? WHERE id IN (${inList(ids.length)}) AND status = 'enabled' AND consecutive_failures >= ?`,
        reason,
        now,
        ...ids,
        threshold,
      ),
    );
  }
}

export function parseEvents(raw: string): string[] {
  try {
    const v: unknown = JSON.parse(raw);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}
