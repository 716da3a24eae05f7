import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { AUDIT_TRAIL, AuditEventType, AuditTrail, AuditValue } from '../common/audit/audit-trail';
import { isLiveAccount } from '../accounts/account-mode';
import { Clock } from '../common/clock';
import { ApiError } from '../common/errors';
import { newId } from '../common/ids';
import { SecretBox } from '../common/secret-box';
import { iso } from '../database/columns';
import { EventEndpointEntity, EventEndpointStatus } from './entities/event-endpoint.entity';
import { eventBody } from './event-body';
import { parseEvents } from './event-endpoints.repository';
import { OutboxEventSink } from './outbox-event-sink';
import { generateEndpointSecret } from './standard-webhooks';
import { WebhookOutboxRepository } from './webhook-outbox.repository';
import { WebhooksService } from './webhooks.service';
import type { AccountId } from '../common/account-id';

export interface EventEndpointView {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: EventEndpointStatus;
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
  livemode: boolean;
}

export type EventEndpointWithSecretView = EventEndpointView & { secret: string };

/** The old secret keeps signing alongside the new one this long after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;
const TEST_EVENT = 'webhook.test';

/** Event subscriptions of an account (owner routes). */
@Injectable()
export class EventEndpointsService {
  constructor(
    @InjectRepository(EventEndpointEntity) private readonly endpoints: Repository<EventEndpointEntity>,
    private readonly webhooks: WebhooksService,
    private readonly outbox: WebhookOutboxRepository,
    private readonly sink: OutboxEventSink,
    private readonly secretBox: SecretBox,
    private readonly clock: Clock,
    @Inject(AUDIT_TRAIL) private readonly audit: AuditTrail,
  ) {}

  async create(
    accountId: AccountId,
    input: { url: string; events: string[]; description?: string },
  ): Promise<EventEndpointWithSecretView> {
    await this.webhooks.assertAllowedTarget(input.url, 'url');
    const now = this.clock.now();
    const secret = generateEndpointSecret();
    const row: EventEndpointEntity = {
      id: newId('wep'),
      accountId,
      url: input.url,
      description: input.description ?? null,
      events: JSON.stringify(dedupe(input.events)),
      status: 'enabled',
      disabledReason: null,
      sealedSecret: this.secretBox.seal(secret),
      previousSealedSecret: null,
      previousSecretExpiresAt: null,
      consecutiveFailures: 0,
      createdAt: now,
      updatedAt: now,
    };
    await this.endpoints.insert(row);
    this.sink.forget(accountId);
    await this.changed('webhook.endpoint_created', accountId, row.id, { after: auditable(toView(row)) });
    return { ...toView(row), secret };
  }

  async list(accountId: AccountId): Promise<EventEndpointView[]> {
    const rows = await this.endpoints.find({ where: { accountId }, order: { id: 'ASC' } });
    return rows.map(toView);
  }

  async get(accountId: AccountId, id: string): Promise<EventEndpointView> {
    return toView(await this.require(accountId, id));
  }

  async update(
    accountId: AccountId,
    id: string,
    input: { url?: string; events?: string[]; description?: string; status?: EventEndpointStatus },
  ): Promise<EventEndpointView> {
    const row = await this.require(accountId, id);
    if (input.url !== undefined) await this.webhooks.assertAllowedTarget(input.url, 'url');
    const patch: Partial<EventEndpointEntity> = { updatedAt: this.clock.now() };
    if (input.url !== undefined) patch.url = input.url;
    if (input.events !== undefined) patch.events = JSON.stringify(dedupe(input.events));
    if (input.description !== undefined) patch.description = input.description;
    if (input.status !== undefined && input.status !== row.status) {
      patch.status = input.status;
      patch.disabledReason = null;
      if (input.status === 'enabled') patch.consecutiveFailures = 0;
    }
    await this.endpoints.update({ id: row.id, accountId }, patch);
    this.sink.forget(accountId);
    const after = toView({ ...row, ...patch });
    await this.changed('webhook.endpoint_updated', accountId, row.id, {
      before: auditable(toView(row)),
      after: auditable(after),
    });
    return after;
  }

  async remove(accountId: AccountId, id: string): Promise<void> {
    const res = await this.endpoints.delete({ id, accountId });
    if (!res.affected) throw notFound();
    this.sink.forget(accountId);
    await this.changed('webhook.endpoint_deleted', accountId, id, { deleted: true });
  }

  /** A new secret; the previous one keeps signing alongside it for ROTATION_OVERLAP_MS. */
  async rotateSecret(accountId: AccountId, id: string): Promise<EventEndpointWithSecretView> {
    const row = await this.require(accountId, id);
    const now = this.clock.now();
    const secret = generateEndpointSecret();
    const patch: Partial<EventEndpointEntity> = {
      sealedSecret: this.secretBox.seal(secret),
      previousSealedSecret: row.sealedSecret,
      previousSecretExpiresAt: now + ROTATION_OVERLAP_MS,
      updatedAt: now,
    };
    await this.endpoints.update({ id: row.id, accountId }, patch);
    await this.changed('webhook.endpoint_updated', accountId, row.id, { secret: 'rotated' });
    return { ...toView({ ...row, ...patch }), secret };
  }

  /** Queues a `webhook.test` event to this endpoint (whatever it subscribes to). */
  async sendTest(accountId: AccountId, id: string): Promise<{ deliveryId: string }> {
    const row = await this.require(accountId, id);
    if (row.status !== 'enabled')
      throw new ApiError('INVALID_STATE', 'The endpoint is disabled: enable it first (PATCH status)');
    const now = this.clock.now();
    const deliveryId = newId('whd');
    const body = eventBody(accountId, {
      type: TEST_EVENT,
      timestamp: iso(now),
      data: { endpointId: row.id, message: 'Test event' },
    });
    await this.outbox.insert(null, [
      {
        id: deliveryId,
        webhookId: deliveryId,
        accountId,
        event: TEST_EVENT,
        endpointId: row.id,
        url: row.url,
        body,
        sealedSecret: '',
        apiKeyHeader: false,
        nextAttemptAt: now,
        createdAt: now,
      },
    ]);
    return { deliveryId };
  }

  /** No unit spans these TypeORM writes: the entry follows the change (never the signing secret). */
  private async changed(
    type: AuditEventType,
    accountId: AccountId,
    id: string,
    changes: Record<string, AuditValue>,
  ): Promise<void> {
    await this.audit.record({ accountId, type, target: id, changes });
  }

  private async require(accountId: AccountId, id: string): Promise<EventEndpointEntity> {
    const row = await this.endpoints.findOneBy({ id, accountId });
    if (!row) throw notFound();
    return row;
  }
}

function dedupe(events: string[]): string[] {
  return [...new Set(events)];
}

function notFound(): ApiError {
  return new ApiError('NOT_FOUND', 'Webhook endpoint not found');
}

/** An endpoint as the trail keeps it: what a subscriber set, not its times. */
function auditable(v: EventEndpointView): Record<string, AuditValue> {
  return { url: v.url, events: v.events, description: v.description, status: v.status };
}

function toView(r: EventEndpointEntity): EventEndpointView {
  return {
    id: r.id,
    url: r.url,
    events: parseEvents(r.events),
    description: r.description,
    status: r.status,
    disabledReason: r.disabledReason,
    createdAt: iso(r.createdAt) as string,
    updatedAt: iso(r.updatedAt) as string,
    livemode: isLiveAccount(r.accountId),
  };
}
