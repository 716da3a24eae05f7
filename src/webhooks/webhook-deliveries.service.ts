import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, LessThan, Repository } from 'typeorm';
import { CursorCodec } from '../common/cursor';
import { iso } from '../database/columns';
import { WebhookAttemptEntity } from './entities/webhook-attempt.entity';
import { DeliveryStatus, WebhookDeliveryEntity } from './entities/webhook-delivery.entity';

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
  url: string;
  status: DeliveryStatus;
  attemptCount: number;
  nextAttemptAt: string | null;
  lastHttpStatus: number | null;
  lastError: string | null;
  createdAt: string;
  completedAt: string | null;
  attempts: WebhookAttemptView[];
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
    private readonly cursors: CursorCodec,
  ) {}

  async list(accountId: string, q: { status?: DeliveryStatus; cursor?: string; limit: number }): Promise<DeliveryPage> {
    const scope = `webhook-deliveries:${accountId}:${q.status ?? 'all'}`;
    const before = this.cursors.decode<string>(scope, q.cursor);
    const rows = await this.deliveries.find({
      where: { accountId, ...(q.status ? { status: q.status } : {}), ...(before ? { id: LessThan(before) } : {}) },
      order: { id: 'DESC' },
      take: q.limit + 1,
    });
    const hasMore = rows.length > q.limit;
    const page = rows.slice(0, q.limit);
    const attempts = page.length
      ? await this.attempts.find({ where: { deliveryId: In(page.map((r) => r.id)) }, order: { attemptNo: 'ASC' } })
      : [];
    return {
      deliveries: page.map((r) => toView(r, attempts.filter((a) => a.deliveryId === r.id))),
      nextCursor: hasMore ? this.cursors.encode(scope, page[page.length - 1].id) : null,
      hasMore,
    };
  }
}

function toView(r: WebhookDeliveryEntity, attempts: WebhookAttemptEntity[]): WebhookDeliveryView {
  return {
    id: r.id,
    event: r.event,
    url: r.url,
    status: r.status,
    attemptCount: attempts.length,
    nextAttemptAt: r.status === 'pending' ? iso(r.nextAttemptAt) : null,
    lastHttpStatus: r.lastHttpStatus,
    lastError: r.lastError,
    createdAt: iso(r.createdAt) as string,
    completedAt: iso(r.completedAt),
    attempts: attempts.map((a) => ({
      attempt: a.attemptNo, at: iso(a.startedAt) as string, httpStatus: a.httpStatus, durationMs: a.durationMs, success: a.success, error: a.error,
    })),
  };
}
