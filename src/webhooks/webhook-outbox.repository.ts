import { Injectable } from '@nestjs/common';
import { decoders, inList, query, Row, sql, SqlParam, Stmt } from '../database/sql';
import { Tx, UnitOfWork } from '../database/unit-of-work';
import { AccountId, accountIdOf } from '../common/account-id';

/** What a delivery sends, where and how it is signed: the same for a new row and a claimed one. */
interface DeliveryTarget {
  id: string;
  accountId: AccountId;
  event: string;
  endpointId: string | null;
  webhookId: string;
  url: string;
  body: string;
  sealedSecret: string;
  apiKeyHeader: boolean;
}

/** A new outbox row (the sink's fan-out, a redelivery). */
export interface NewDelivery extends DeliveryTarget {
  nextAttemptAt: number;
  createdAt: number;
}

/** A claimed delivery: what a send needs. */
export interface ClaimedDelivery extends DeliveryTarget {
  /** This attempt's number (1-based). */
  attemptNo: number;
  /** The lease was taken over from a replica that died mid-attempt. */
  takeover: boolean;
}

/** What one attempt ended in, ready to write. */
export interface AttemptRecord {
  id: string;
  deliveryId: string;
  attemptNo: number;
  startedAt: number;
  durationMs: number;
  httpStatus: number | null;
  error: string | null;
  success: boolean;
  /** The delivery's next status, and when to try again while `pending`. */
  status: 'pending' | 'delivered' | 'failed';
  nextAttemptAt: number | null;
}

const INSERT_CHUNK = 500;
const DELIVERY_COLUMNS =
  'id, account_id, event, endpoint_id, webhook_id, url, body, sealed_secret, api_key_header, status, attempt_count, next_attempt_at, created_at, updated_at';

/** Attempt limits: spec events have a fixed count, endpoint deliveries the retry schedule's length. */
export interface AttemptLimits {
  spec: number;
  endpoint: number;
}
const underLimit = (l: AttemptLimits): Stmt =>
  sql('attempt_count < (CASE WHEN endpoint_id IS NULL THEN ? ELSE ? END)', l.spec, l.endpoint);
/** A due row a claim found: its id, and whether a lease (expired since) held it. */
const toDue = (r: Row): { id: string; leased: boolean } => ({ id: String(r.id), leased: r.lease_expires_at !== null });

/**
 * The outbox's statements, batched: one multi-row INSERT per fan-out, one claim of many due rows, one
 * write of many attempts' outcomes. Works across accounts (the delivery loop's rows).
 */
@Injectable()
export class WebhookOutboxRepository {
  constructor(private readonly uow: UnitOfWork) {}

  /** Multi-row INSERT (chunks of 500 rows), in `tx` when given. */
  async insert(tx: Tx | null, rows: readonly NewDelivery[]): Promise<void> {
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      const chunk = rows.slice(i, i + INSERT_CHUNK);
      const params: SqlParam[] = [];
      for (const r of chunk) {
        params.push(
          r.id,
          r.accountId,
          r.event,
          r.endpointId,
          r.webhookId,
          r.url,
          r.body,
          r.sealedSecret,
          r.apiKeyHeader ? 1 : 0,
          'pending',
          0,
          r.nextAttemptAt,
          r.createdAt,
          r.createdAt,
        );
      }
      const values = chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ');
      const stmt = sql(`INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS}) VALUES ${values}`, ...params);
      await (tx ? tx.run(stmt) : this.uow.run(stmt));
    }
  }

  /**
   * Leases up to `limit` due rows to `owner` in three statements: pick, a conditional UPDATE (only
   * free or expired leases move, so replicas never share a row), read back what this claim got.
   */
  async claimDue(
    owner: string,
    now: number,
    leaseMs: number,
    limit: number,
    limits: AttemptLimits,
  ): Promise<ClaimedDelivery[]> {
    const lim = underLimit(limits);
    const due = await this.uow.read(
      query(
        toDue,
        sql(
          `SELECT id, lease_expires_at FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ? AND ${lim.sql}
       AND (lease_expires_at IS NULL OR lease_expires_at < ?) ORDER BY next_attempt_at LIMIT ${Math.max(1, Math.floor(limit))}`,
          now,
          ...lim.params,
          now,
        ),
      ),
    );
    if (!due.length) return [];
    const ids = due.map((d) => d.id);
    const expires = now + leaseMs;
    const claimed = await this.uow.exec(
      sql(
        `UPDATE webhook_deliveries SET lease_owner = ?, lease_expires_at = ?, attempt_count = attempt_count + 1, updated_at = ?
       WHERE id IN (${inList(ids.length)}) AND status = 'pending' AND ${lim.sql} AND (lease_expires_at IS NULL OR lease_expires_at < ?)`,
        owner,
        expires,
        now,
        ...ids,
        ...lim.params,
        now,
      ),
    );
    if (!claimed) return [];
    const rows = await this.uow.read(
      query(
        toClaimed,
        sql(
          `SELECT id, account_id, event, endpoint_id, webhook_id, url, body, sealed_secret, api_key_header, attempt_count
       FROM webhook_deliveries WHERE id IN (${inList(ids.length)}) AND lease_owner = ? AND lease_expires_at = ?`,
          ...ids,
          owner,
          expires,
        ),
      ),
    );
    const heldBefore = new Set(due.filter((d) => d.leased).map((d) => d.id));
    return rows.map((c) => ({ ...c, takeover: heldBefore.has(c.id) }));
  }

  /**
   * Logs the attempts (they happened, whatever follows) and moves their deliveries on, fenced by the
   * lease, in one unit. Returns the ids whose lease was lost (not moved).
   */
  async recordAttempts(
    owner: string,
    now: number,
    recs: readonly AttemptRecord[],
    extra?: (tx: Tx) => Promise<void>,
  ): Promise<number> {
    if (!recs.length) return 0;
    return this.uow.transaction(async (tx) => {
      const params: SqlParam[] = [];
      for (const a of recs)
        params.push(
          a.id,
          a.deliveryId,
          a.attemptNo,
          a.startedAt,
          a.durationMs,
          a.httpStatus,
          a.error,
          a.success ? 1 : 0,
        );
      await tx.run(
        sql(
          `INSERT INTO webhook_attempts (id, delivery_id, attempt_no, started_at, duration_ms, http_status, error, success) VALUES ${recs.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
          ...params,
        ),
      );
      // Rows with the same outcome move in one UPDATE (most of a batch: delivered, HTTP 200).
      const groups = new Map<string, AttemptRecord[]>();
      for (const a of recs) {
        const key = JSON.stringify([a.status, a.httpStatus, a.error, a.nextAttemptAt]);
        const g = groups.get(key);
        if (g) g.push(a);
        else groups.set(key, [a]);
      }
      let moved = 0;
      for (const g of groups.values()) {
        const a = g[0];
        const ids = g.map((r) => r.deliveryId);
        moved += await tx.exec(
          sql(
            `UPDATE webhook_deliveries SET status = ?, last_http_status = ?, last_error = ?, next_attempt_at = COALESCE(?, next_attempt_at), completed_at = ?,
           lease_owner = NULL, lease_expires_at = NULL, updated_at = ? WHERE id IN (${inList(ids.length)}) AND lease_owner = ?`,
            a.status,
            a.httpStatus,
            a.error,
            a.nextAttemptAt,
            a.status === 'pending' ? null : now,
            now,
            ...ids,
            owner,
          ),
        );
      }
      if (extra) await extra(tx);
      return recs.length - moved;
    });
  }

  /** Claimed rows that were never sent (shutdown): their attempt is not counted, and they are free again. */
  async releaseUnsent(owner: string, ids: readonly string[]): Promise<void> {
    if (!ids.length) return;
    await this.uow.run(
      sql(
        `UPDATE webhook_deliveries SET lease_owner = NULL, lease_expires_at = NULL, attempt_count = attempt_count - 1 WHERE id IN (${inList(ids.length)}) AND lease_owner = ? AND status = 'pending'`,
        ...ids,
        owner,
      ),
    );
  }

  /** Claimed but unrecorded rows of `owner` (shutdown): due again at once, on any replica. */
  async release(owner: string): Promise<void> {
    await this.uow.run(
      sql(
        `UPDATE webhook_deliveries SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = ? AND status = 'pending'`,
        owner,
      ),
    );
  }

  /** A replica died holding the last attempt: once its lease expires the delivery is failed. */
  async failAbandoned(now: number, limits: AttemptLimits): Promise<void> {
    const lim = underLimit(limits);
    await this.uow.run(
      sql(
        `UPDATE webhook_deliveries SET status = 'failed', lease_owner = NULL, lease_expires_at = NULL, last_error = 'attempt interrupted (lease expired)',
       updated_at = ?, completed_at = ? WHERE status = 'pending' AND NOT (${lim.sql}) AND lease_expires_at < ?`,
        now,
        now,
        ...lim.params,
        now,
      ),
    );
  }

  /** Finished deliveries completed before `cutoff` go (with their attempts), a bounded chunk per call. */
  async pruneOld(cutoff: number): Promise<void> {
    const ids = await this.uow.read(
      query(
        decoders.id,
        sql(
          `SELECT id FROM webhook_deliveries WHERE status IN ('delivered', 'failed') AND completed_at < ? LIMIT 1000`,
          cutoff,
        ),
      ),
    );
    if (!ids.length) return;
    await this.uow.transaction(async (tx) => {
      await tx.run(sql(`DELETE FROM webhook_attempts WHERE delivery_id IN (${inList(ids.length)})`, ...ids));
      await tx.run(sql(`DELETE FROM webhook_deliveries WHERE id IN (${inList(ids.length)})`, ...ids));
    });
  }
}

/** A row the claim got (`takeover` is known from its due row). */
function toClaimed(r: Row): Omit<ClaimedDelivery, 'takeover'> {
  return {
    id: String(r.id),
    accountId: accountIdOf(String(r.account_id)),
    event: String(r.event),
    endpointId: r.endpoint_id === null ? null : String(r.endpoint_id),
    webhookId: r.webhook_id === null ? String(r.id) : String(r.webhook_id),
    url: String(r.url),
    body: String(r.body),
    sealedSecret: String(r.sealed_secret),
    apiKeyHeader: Number(r.api_key_header) === 1 || r.api_key_header === true,
    attemptNo: Number(r.attempt_count),
  };
}
