import { Injectable } from '@nestjs/common';
import { isLiveAccount } from '../../accounts/account-mode';
import { CursorCodec, Page } from '../../common/cursor';
import { ApiError } from '../../common/errors';
import { iso } from '../../database/columns';
import { UnitOfWork } from '../../database/unit-of-work';
import type { InboundSmsItem } from './dto/inbound-sms.response';
import type { ListInboundSmsQuery } from './dto/list-inbound-sms.query';
import { InboundSmsPartRecord, InboundSmsRecord, InboundSmsRepository } from './inbound-sms.repository';
import type { AccountId } from '../../common/account-id';

/** An inbound SMS of `accountId` as the API shows it, with its parts among `parts` (joined in order). */
export function toInboundSmsItem(
  r: InboundSmsRecord,
  accountId: AccountId,
  parts: readonly InboundSmsPartRecord[],
): InboundSmsItem {
  return {
    id: r.id,
    from: r.fromAddress,
    to: r.toAddress,
    text: r.text,
    senderId: r.senderId,
    receivedAt: iso(r.receivedAt) as string,
    partsTotal: r.partsTotal,
    partsReceived: r.partsReceived,
    complete: r.partsReceived >= r.partsTotal,
    parts: parts
      .filter((p) => p.inboundSmsId === r.id)
      .map((p) => ({ seq: p.seq, text: p.text, receivedAt: iso(p.receivedAt) as string })),
    // Read for `accountId`, so that is its account.
    livemode: isLiveAccount(r.accountId ?? accountId),
  };
}

/** GET /api/v2/sms/inbound: an account's inbound SMS, newest first, with their parts. */
@Injectable()
export class InboundSmsQueryService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly repo: InboundSmsRepository,
    private readonly cursors: CursorCodec,
  ) {}

  async list(accountId: AccountId, q: ListInboundSmsQuery): Promise<Page<InboundSmsItem>> {
    const scope = `inbound-sms:${accountId}`;
    const after = this.cursors.decode<string>(scope, q.cursor);
    if (after !== null && typeof after !== 'string') throw ApiError.validation('cursor is invalid');
    const since = q.since === undefined ? undefined : Date.parse(q.since);
    const until = q.until === undefined ? undefined : Date.parse(q.until);
    if (since !== undefined && until !== undefined && until <= since)
      throw ApiError.validation('until must be after since');
    const from = q.from === undefined ? undefined : /^\d+$/.test(q.from) ? `+${q.from}` : q.from;
    const limit = q.limit ?? 50;
    const { rows, parts } = await this.uow.transaction(async (tx) => {
      const found = await this.repo.list(tx, accountId, {
        senderName: q.sender?.replace(/^\+/, ''),
        from,
        since,
        until,
        beforeId: after,
        limit: limit + 1,
      });
      const page = found.slice(0, limit);
      const multi = page.filter((r) => r.partsTotal > 1).map((r) => r.id);
      return { rows: found, parts: await this.repo.partsOf(tx, multi) };
    });
    const hasMore = rows.length > limit;
    const page = rows.slice(0, limit);
    const items = page.map((r) => toInboundSmsItem(r, accountId, parts));
    return { items, hasMore, nextCursor: hasMore ? this.cursors.encode(scope, page[page.length - 1].id) : null };
  }
}
