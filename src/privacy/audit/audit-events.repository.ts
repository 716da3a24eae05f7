import { Injectable } from '@nestjs/common';
import type { AuditEventType, AuditValue } from '../../common/audit/audit-trail';
import { query, Row, sql, SqlParam } from '../../database/sql';
import { UnitOfWork } from '../../database/unit-of-work';
import { AccountId, accountIdOf } from '../../common/account-id';

/** An audit_events row. */
export interface AuditEventRecord {
  id: string;
  accountId: AccountId;
  type: AuditEventType;
  actor: string;
  requestId: string | null;
  target: string | null;
  changes: { [k: string]: AuditValue };
  createdAt: number;
}

export interface AuditFilter {
  type?: string;
  from?: number;
  to?: number;
  /** The last event of the previous page (newest first). */
  before?: { createdAt: number; id: string } | null;
  limit: number;
}

/** The one mapping of an audit_events row. */
function toRecord(r: Row): AuditEventRecord {
  return {
    id: String(r.id),
    accountId: accountIdOf(String(r.account_id)),
    type: String(r.type) as AuditEventType,
    actor: String(r.actor),
    requestId: r.request_id === null ? null : String(r.request_id),
    target: r.target === null ? null : String(r.target),
    changes: JSON.parse(String(r.changes)) as AuditEventRecord['changes'],
    createdAt: Number(r.created_at),
  };
}

/** The audit trail, owned by the privacy module. Written in the unit of the change it records. */
@Injectable()
export class AuditEventsRepository {
  constructor(private readonly uow: UnitOfWork) {}

  async insert(e: AuditEventRecord): Promise<void> {
    await this.uow.exec(
      sql(
        'INSERT INTO audit_events (id, account_id, type, actor, request_id, target, changes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        e.id,
        e.accountId,
        e.type,
        e.actor,
        e.requestId,
        e.target,
        JSON.stringify(e.changes),
        e.createdAt,
      ),
    );
  }

  /** The account's events, newest first (ix_audit_events_account, or ix_audit_events_type with a type). */
  async list(accountId: AccountId, f: AuditFilter): Promise<AuditEventRecord[]> {
    const where: string[] = ['account_id = ?'];
    const params: SqlParam[] = [accountId];
    const add = (clause: string, value: SqlParam | undefined) => {
      if (value === undefined) return;
      where.push(clause);
      params.push(value);
    };
    add('type = ?', f.type);
    add('created_at >= ?', f.from);
    add('created_at < ?', f.to);
    if (f.before) {
      where.push('(created_at < ? OR (created_at = ? AND id < ?))');
      params.push(f.before.createdAt, f.before.createdAt, f.before.id);
    }
    return this.uow.read(
      query(
        toRecord,
        sql(
          `SELECT id, account_id, type, actor, request_id, target, changes, created_at FROM audit_events WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ${f.limit}`,
          ...params,
        ),
      ),
    );
  }

  /** Deletes at most `chunk` events older than `before` (across accounts: the purger's); how many. */
  async deleteOlderAcrossAccounts(before: number, chunk: number): Promise<number> {
    return this.uow.exec(
      sql(
        `DELETE FROM audit_events WHERE id IN (SELECT id FROM (SELECT id FROM audit_events WHERE created_at < ? ORDER BY created_at LIMIT ${chunk}) old)`,
        before,
      ),
    );
  }
}
