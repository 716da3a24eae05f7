import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, LessThan, Repository } from 'typeorm';
import { CursorCodec } from '../common/cursor';
import { isLiveAccount } from '../accounts/account-mode';
import { ApiError } from '../common/errors';
import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { EventEndpointEntity } from './entities/event-endpoint.entity';
import { WebhookOutboxRepository } from './webhook-outbox.repository';
import { iso } from '../database/columns';
import { WebhookAttemptEntity } from './entities/webhook-attempt.entity';
import { DeliveryStatus, WebhookDeliveryEntity } from './entities/webhook-delivery.entity';
import type { AccountId } from '../common/account-id';

export interface WebhookAttemptView {
  attempt: number;
  at: string;
  httpStatus: number | null;
  durationMs: number;
  success: boolean;
  error: string | null;
}

export interface WebhookDeliveryView {
  id: string;
  event: string;
  endpointId: string | null;
  webhookId: string;
  url: string;
  status: DeliveryStatus;
  attemptCount: number;
  nextAttemptAt: string | null;
  lastHttpStatus: number | null;
  lastError: string | null;
  createdAt: string;
  completedAt: string | null;
  attempts: WebhookAttemptView[];
  livemode: boolean;
}

export interface DeliveryPage {
  deliveries: WebhookDeliveryView[];
  nextCursor: string | null;
  hasMore: boolean;
}

/** The account's delivery log, newest first, with every attempt. */
@Injectable()
export class WebhookDeliveriesService {
  constructor(
    @InjectRepository(WebhookDeliveryEntity) private readonly deliveries: Repository<WebhookDeliveryEntity>,
    @InjectRepository(WebhookAttemptEntity) private readonly attempts: Repository<WebhookAttemptEntity>,
    @InjectRepository(EventEndpointEntity) private readonly endpoints: Repository<EventEndpointEntity>,
    private readonly outbox: WebhookOutboxRepository,
    private readonly cursors: CursorCodec,
    private readonly clock: Clock,
  ) {}

  async list(accountId: AccountId, q: DeliveryFilter & { cursor?: string; limit: number }): Promise<DeliveryPage> {
    const scope = `webhook-deliveries:${accountId}:${q.status ?? 'all'}:${q.endpointId ?? ''}:${q.event ?? ''}`;
    const before = this.cursors.decode<string>(scope, q.cursor);
    const rows = await this.deliveries.find({
      where: {
        accountId,
        ...(q.status ? { status: q.status } : {}),
        ...(q.endpointId ? { endpointId: q.endpointId } : {}),
        ...(q.event ? { event: q.event } : {}),
        ...(before ? { id: LessThan(before) } : {}),
      },
      order: { id: 'DESC' },
      take: q.limit + 1,
    });
    const hasMore = rows.length > q.limit;
    const page = rows.slice(0, q.limit);
    const attempts = page.length
      ? await this.attempts.find({ where: { deliveryId: In(page.map((r) => r.id)) }, order: { attemptNo: 'ASC' } })
      : [];
    return {
      deliveries: page.map((r) =>
        toView(
          r,
          attempts.filter((a) => a.deliveryId === r.id),
        ),
      ),
      nextCursor: hasMore ? this.cursors.encode(scope, page[page.length - 1].id) : null,
      hasMore,
    };
  }

  /**
   * A new series of attempts of a delivery: a new log entry with the same body and `webhook-id`, so
   * a receiver that already processed it can tell. Event endpoint deliveries need their endpoint
   * still there and enabled (409 INVALID_STATE otherwise).
   */
  async redeliver(accountId: AccountId, id: string): Promise<WebhookDeliveryView> {
    const row = await this.deliveries.findOneBy({ id, accountId });
    if (!row) throw new ApiError('NOT_FOUND', 'Webhook delivery not found');
    let url = row.url;
    if (row.endpointId) {
      const endpoint = await this.endpoints.findOneBy({ id: row.endpointId, accountId });
      if (!endpoint || endpoint.status !== 'enabled')
        throw new ApiError('INVALID_STATE', "The delivery's endpoint is deleted or disabled");
      url = endpoint.url;
    }
    const now = this.clock.now();
    const copy = {
      id: newId('whd'),
      accountId,
      event: row.event,
      endpointId: row.endpointId,
      webhookId: row.webhookId ?? row.id,
      url,
      body: row.body,
      sealedSecret: row.sealedSecret,
      apiKeyHeader: row.apiKeyHeader,
      nextAttemptAt: now,
      createdAt: now,
    };
    await this.outbox.insert(null, [copy]);
    const fresh = { status: 'pending' as const, lastHttpStatus: null, lastError: null, completedAt: null };
    return toView({ ...row, ...copy, ...fresh, updatedAt: now }, []);
  }
}

export interface DeliveryFilter {
  status?: DeliveryStatus;
  endpointId?: string;
  event?: string;
}

function toView(r: WebhookDeliveryEntity, attempts: WebhookAttemptEntity[]): WebhookDeliveryView {
  return {
    id: r.id,
    event: r.event,
    endpointId: r.endpointId,
    webhookId: r.webhookId ?? r.id,
    url: r.url,
    status: r.status,
    attemptCount: attempts.length,
    nextAttemptAt: r.status === 'pending' ? iso(r.nextAttemptAt) : null,
    lastHttpStatus: r.lastHttpStatus,
    lastError: r.lastError,
    createdAt: iso(r.createdAt) as string,
    completedAt: iso(r.completedAt),
    attempts: attempts.map((a) => ({
      attempt: a.attemptNo,
      at: iso(a.startedAt) as string,
      httpStatus: a.httpStatus,
      durationMs: a.durationMs,
      success: a.success,
      error: a.error,
    })),
    livemode: isLiveAccount(r.accountId),
  };
}
