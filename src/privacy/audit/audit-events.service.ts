import { Injectable } from '@nestjs/common';
import { isLiveAccount } from '../../accounts/account-mode';
import type { AuditValue } from '../../common/audit/audit-trail';
import { CursorCodec, Page } from '../../common/cursor';
import { ApiError } from '../../common/errors';
import { iso } from '../../database/columns';
import { AuditEventRecord, AuditEventsRepository } from './audit-events.repository';
import type { AccountId } from '../../common/account-id';

export interface AuditEventView {
  id: string;
  type: string;
  actor: string;
  requestId: string | null;
  target: string | null;
  changes: { [k: string]: AuditValue };
  createdAt: string;
  livemode: boolean;
}

export interface AuditQuery {
  type?: string;
  from?: string;
  to?: string;
  cursor?: string;
  limit?: number;
}

function view(e: AuditEventRecord): AuditEventView {
  return {
    id: e.id,
    type: e.type,
    actor: e.actor,
    requestId: e.requestId,
    target: e.target,
    changes: e.changes,
    createdAt: iso(e.createdAt) as string,
    livemode: isLiveAccount(e.accountId),
  };
}

/** GET /api/v2/audit-events: the account's trail, newest first, by cursor. */
@Injectable()
export class AuditEventsService {
  constructor(
    private readonly events: AuditEventsRepository,
    private readonly cursors: CursorCodec,
  ) {}

  async list(accountId: AccountId, q: AuditQuery): Promise<Page<AuditEventView>> {
    const from = q.from === undefined ? undefined : Date.parse(q.from);
    const to = q.to === undefined ? undefined : Date.parse(q.to);
    if (from !== undefined && to !== undefined && from >= to) throw ApiError.validation('from must be before to');
    const scope = `audit-events:${accountId}`;
    const limit = q.limit ?? 50;
    const before = this.cursors.decode<{ createdAt: number; id: string }>(scope, q.cursor);
    const rows = await this.events.list(accountId, { type: q.type, from, to, before, limit: limit + 1 });
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    const hasMore = rows.length > limit;
    return {
      items: items.map(view),
      hasMore,
      nextCursor: hasMore && last ? this.cursors.encode(scope, { createdAt: last.createdAt, id: last.id }) : null,
    };
  }
}
