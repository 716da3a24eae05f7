import { Injectable } from '@nestjs/common';
import { caseOf, inList, Row, sql, SqlParam, Stmt } from '../database/sql';
import { Tx, UnitOfWork } from '../database/unit-of-work';

/** A new outbox row (the sink's fan-out, a redelivery). */
export interface NewDelivery {
  id: string;
  accountId: string;
  event: string;
  endpointId: string | null;
  webhookId: string;
  url: string;
  body: string;
  sealedSecret: string;
  apiKeyHeader: boolean;
  nextAttemptAt: number;
  createdAt: number;
}

/** A claimed delivery: what a send needs. */
export interface ClaimedDelivery {
  id: string;
  accountId: string;
  event: string;
  endpointId: string | null;
  webhookId: string;
  url: string;
  body: string;
  sealedSecret: string;
  apiKeyHeader: boolean;
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
const DELIVERY_COLUMNS = 'id, account_id, event, endpoint_id, webhook_id, url, body, sealed_secret, api_key_header, status, attempt_count, next_attempt_at, created_at, updated_at';

/** Attempt limits: spec events have a fixed count, endpoint deliveries the retry schedule's length. */
export interface AttemptLimits {
  spec: number;
  endpoint: number;
}
const underLimit = (l: AttemptLimits): Stmt => sql('attempt_count < (CASE WHEN endpoint_id IS NULL THEN ? ELSE ? END)', l.spec, l.endpoint);

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
        params.push(r.id, r.accountId, r.event, r.endpointId, r.webhookId, r.url, r.body, r.sealedSecret, r.apiKeyHeader ? 1 : 0, 'pending', 0, r.nextAttemptAt, r.createdAt, r.createdAt);
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
  async claimDue(owner: string, now: number, leaseMs: number, limit: number, limits: AttemptLimits): Promise<ClaimedDelivery[]> {
    const lim = underLimit(limits);
    const due = await this.uow.rows(sql(
      `SELECT id, lease_expires_at FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ? AND ${lim.sql}
       AND (lease_expires_at IS NULL OR lease_expires_at < ?) ORDER BY next_attempt_at LIMIT ${Math.max(1, Math.floor(limit))}`,
      now, ...lim.params, now,
    ));
    if (!due.length) return [];
    const ids = due.map((r) => String(r.id));
    const expires = now + leaseMs;
    const claimed = await this.uow.exec(sql(
      `UPDATE webhook_deliveries SET lease_owner = ?, lease_expires_at = ?, attempt_count = attempt_count + 1, updated_at = ?
       WHERE id IN (${inList(ids.length)}) AND status = 'pending' AND ${lim.sql} AND (lease_expires_at IS NULL OR lease_expires_at < ?)`,
      owner, expires, now, ...ids, ...lim.params, now,
    ));
    if (!claimed) return [];
    const rows = await this.uow.rows(sql(
      `SELECT id, account_id, event, endpoint_id, webhook_id, url, body, sealed_secret, api_key_header, attempt_count
       FROM webhook_deliveries WHERE id IN (${inList(ids.length)}) AND lease_owner = ? AND lease_expires_at = ?`,
      ...ids, owner, expires,
    ));
    const heldBefore = new Set(due.filter((r) => r.lease_expires_at !== null).map((r) => String(r.id)));
    return rows.map((r) => toClaimed(r, heldBefore.has(String(r.id))));
  }

  /**
   * Logs the attempts (they happened, whatever follows) and moves their deliveries on, fenced by the
   * lease, in one unit. Returns the ids whose lease was lost (not moved).
   */
  async recordAttempts(owner: string, now: number, recs: readonly AttemptRecord[], extra?: (tx: Tx) => Promise<void>): Promise<number> {
    if (!recs.length) return 0;
    return this.uow.transaction(async (tx) => {
      const params: SqlParam[] = [];
      for (const a of recs) params.push(a.id, a.deliveryId, a.attemptNo, a.startedAt, a.durationMs, a.httpStatus, a.error, a.success ? 1 : 0);
      await tx.run(sql(
        `INSERT INTO webhook_attempts (id, delivery_id, attempt_no, started_at, duration_ms, http_status, error, success) VALUES ${recs.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
        ...params,
      ));
      const ids = recs.map((a) => a.deliveryId);
      const status = caseOf('id', recs.map((a) => [a.deliveryId, a.status]));
      const httpStatus = caseOf('id', recs.map((a) => [a.deliveryId, a.httpStatus]));
      const error = caseOf('id', recs.map((a) => [a.deliveryId, a.error]));
      const next = caseOf('id', recs.map((a) => [a.deliveryId, a.nextAttemptAt]));
      const completed = caseOf('id', recs.map((a) => [a.deliveryId, a.status === 'pending' ? null : now]));
      const moved = await tx.exec(sql(
        `UPDATE webhook_deliveries SET status = ${status.sql}, last_http_status = ${httpStatus.sql}, last_error = ${error.sql},
         next_attempt_at = COALESCE(${next.sql}, next_attempt_at), completed_at = ${completed.sql},
         lease_owner = NULL, lease_expires_at = NULL, updated_at = ?
         WHERE id IN (${inList(ids.length)}) AND lease_owner = ?`,
        ...status.params, ...httpStatus.params, ...error.params, ...next.params, ...completed.params, now, ...ids, owner,
      ));
      if (extra) await extra(tx);
      return recs.length - moved;
    });
  }

  /** Claimed but unrecorded rows of `owner` (shutdown): due again at once, on any replica. */
  async release(owner: string): Promise<void> {
    await this.uow.run(sql(`UPDATE webhook_deliveries SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = ? AND status = 'pending'`, owner));
  }

  /** A replica died holding the last attempt: once its lease expires the delivery is failed. */
  async failAbandoned(now: number, limits: AttemptLimits): Promise<void> {
    const lim = underLimit(limits);
    await this.uow.run(sql(
      `UPDATE webhook_deliveries SET status = 'failed', lease_owner = NULL, lease_expires_at = NULL, last_error = 'attempt interrupted (lease expired)',
       updated_at = ?, completed_at = ? WHERE status = 'pending' AND NOT (${lim.sql}) AND lease_expires_at < ?`,
      now, now, ...lim.params, now,
    ));
  }

  /** Finished deliveries completed before `cutoff` go (with their attempts), a bounded chunk per call. */
  async pruneOld(cutoff: number): Promise<void> {
    const old = await this.uow.rows(sql(`SELECT id FROM webhook_deliveries WHERE status IN ('delivered', 'failed') AND completed_at < ? LIMIT 1000`, cutoff));
    if (!old.length) return;
    const ids = old.map((r) => String(r.id));
    await this.uow.transaction(async (tx) => {
      await tx.run(sql(`DELETE FROM webhook_attempts WHERE delivery_id IN (${inList(ids.length)})`, ...ids));
      await tx.run(sql(`DELETE FROM webhook_deliveries WHERE id IN (${inList(ids.length)})`, ...ids));
    });
  }
}

function toClaimed(r: Row, takeover: boolean): ClaimedDelivery {
  return {
    id: String(r.id),
    accountId: String(r.account_id),
    event: String(r.event),
    endpointId: r.endpoint_id === null ? null : String(r.endpoint_id),
    webhookId: r.webhook_id === null ? String(r.id) : String(r.webhook_id),
    url: String(r.url),
    body: String(r.body),
    sealedSecret: String(r.sealed_secret),
    apiKeyHeader: Number(r.api_key_header) === 1 || r.api_key_header === true,
    attemptNo: Number(r.attempt_count),
    takeover,
  };
}
