import { Injectable } from '@nestjs/common';
import { isLiveAccount } from '../accounts/account-mode';
import { CursorCodec } from '../common/cursor';
import { ApiError } from '../common/errors';
import { AppConfig } from '../config/app-config';
import type { Suppression, SuppressionEntryInput } from './dto/suppressions.dto';
import { requireRecipient } from './recipient-key';
import type { SuppressionChannel, SuppressionReason, SuppressionRecord } from './suppression-types';
import { SuppressionsService } from './suppressions.service';
import type { AccountId } from '../common/account-id';

export interface SuppressionPageView {
  suppressions: Suppression[];
  nextCursor: string | null;
  hasMore: boolean;
}

/** The suppression list as the API serves it: recipients normalised like `to`, entries mapped once. */
@Injectable()
export class SuppressionsApiService {
  private readonly region: string;

  constructor(
    private readonly suppressions: SuppressionsService,
    private readonly cursors: CursorCodec,
    config: AppConfig,
  ) {
    this.region = config.messaging.defaultRegion;
  }

  /** Adds (or widens) entries, all or none: every recipient is checked before one is written. */
  async add(accountId: AccountId, entries: readonly SuppressionEntryInput[], source: string): Promise<Suppression[]> {
    const reqs = entries.map((e, i) => ({
      recipient: requireRecipient(e.recipient, this.region, `entries[${i}].recipient`),
      channel: e.channel ?? 'all',
      scope: e.scope ?? 'marketing',
      reason: e.reason ?? 'api',
      source,
    }));
    await this.suppressions.optOutMany(accountId, reqs);
    return (await this.suppressions.entries(accountId, reqs)).map(view);
  }

  async list(
    accountId: AccountId,
    q: {
      cursor?: string;
      limit?: number;
      recipient?: string;
      channel?: SuppressionChannel;
      reason?: SuppressionReason;
    },
  ): Promise<SuppressionPageView> {
    const scope = `suppressions:${accountId}`;
    const after = this.cursors.decode<{ createdAt: number; id: string }>(scope, q.cursor);
    const limit = q.limit ?? 50;
    const rows = await this.suppressions.list(accountId, {
      recipient: q.recipient === undefined ? undefined : requireRecipient(q.recipient, this.region),
      channel: q.channel,
      reason: q.reason,
      after,
      limit: limit + 1,
    });
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    const hasMore = rows.length > limit;
    return {
      suppressions: items.map(view),
      hasMore,
      nextCursor: hasMore && last ? this.cursors.encode(scope, { createdAt: last.createdAt, id: last.id }) : null,
    };
  }

  /** Removes the recipient's entries (one channel key, or all); 404 when it has none. */
  async remove(accountId: AccountId, rawRecipient: string, channel?: SuppressionChannel): Promise<number> {
    const recipient = requireRecipient(rawRecipient, this.region);
    const removed = await this.suppressions.optIn({ accountId, recipient, channel });
    if (removed === 0) throw ApiError.notFound('Suppression');
    return removed;
  }
}

function view(r: SuppressionRecord): Suppression {
  return {
    id: r.id,
    recipient: r.recipient,
    channel: r.channel,
    scope: r.scope,
    reason: r.reason,
    source: r.source,
    createdAt: new Date(r.createdAt).toISOString(),
    livemode: isLiveAccount(r.accountId),
  };
}
