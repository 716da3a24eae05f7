import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { eventBody } from './event-body';
import { WebhookDeliveryEntity } from './entities/webhook-delivery.entity';
import { WebhookEndpointEntity } from './entities/webhook-endpoint.entity';
import { TargetPolicy } from '../common/net/target-policy';
import type { AccountId } from '../common/account-id';

export interface EnqueueWebhookInput {
  accountId: AccountId;
  url: string;
  event: string;
  /** The spec's `{ event, timestamp, data }`; `livemode` is added beside them. */
  body: Record<string, unknown>;
  /** SecretBox-sealed credential, sent as `Authorization: Bearer <secret>`. */
  sealedSecret: string;
  /** Also send the secret as `X-API-Key` (web-session events). */
  apiKeyHeader: boolean;
}

/** The module's exported contract: write events to the outbox, check targets, read targets. */
@Injectable()
export class WebhooksService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly policy: TargetPolicy,
    private readonly clock: Clock,
  ) {}

  /**
   * Writes one outbox row; with `em` it joins that transaction, so the event exists if and only if
   * the change that caused it commits. The delivery loop sends it (first attempt right away).
   */
  async enqueue(em: EntityManager | null, input: EnqueueWebhookInput): Promise<{ deliveryId: string }> {
    // No target check here: URLs were checked when configured, and the send-time check (scheme and
    // resolved address) fails a delivery whose target is no longer allowed, visibly in the log,
    // instead of failing the caller's transaction (e.g. an inbound provider event).
    const now = this.clock.now();
    const id = newId('whd');
    const row: WebhookDeliveryEntity = {
      id,
      accountId: input.accountId,
      event: input.event,
      endpointId: null,
      webhookId: id,
      url: input.url,
      body: eventBody(input.accountId, input.body),
      sealedSecret: input.sealedSecret,
      apiKeyHeader: input.apiKeyHeader,
      status: 'pending',
      attemptCount: 0,
      nextAttemptAt: now,
      leaseOwner: null,
      leaseExpiresAt: null,
      lastHttpStatus: null,
      lastError: null,
      createdAt: now,
      updatedAt: now,
      completedAt: null,
    };
    await (em ?? this.dataSource.manager).insert(WebhookDeliveryEntity, row);
    return { deliveryId: row.id };
  }

  /** 400 VALIDATION_ERROR (message starts with `field`) unless the URL is an allowed webhook target. */
  async assertAllowedTarget(url: unknown, field = 'url'): Promise<void> {
    await this.policy.assertAllowed(url, field);
  }

  /** The account's web-session webhook (developer settings), or null when none is set. */
  async getChatappWebTarget(accountId: AccountId): Promise<{ url: string; sealedSecret: string } | null> {
    const row = await this.dataSource.manager.findOneBy(WebhookEndpointEntity, { accountId, kind: 'chatapp_web' });
    return row ? { url: row.url, sealedSecret: row.sealedSecret } : null;
  }
}
