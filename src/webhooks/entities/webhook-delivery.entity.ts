import { Column, Entity, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../../database/columns';
import type { AccountId } from '../../common/account-id';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One outbox row: an event to POST to one URL, retried until 2xx or the attempts run out. */
@Entity('webhook_deliveries')
export class WebhookDeliveryEntity {
  /** Also the `X-Service-Delivery-Id` header, the same on every attempt. */
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ type: 'varchar', length: 40 })
  accountId: AccountId;

  @Column({ type: 'varchar', length: 100 })
  event: string;

  /** The event endpoint it goes to (signed with that endpoint's secrets at send time); null for the spec's own events. */
  @Column({ type: 'varchar', length: 40, nullable: true })
  endpointId: string | null;

  /** The `webhook-id` header: the first delivery's id, kept by redeliveries (null on rows older than it: their id). */
  @Column({ type: 'varchar', length: 40, nullable: true })
  webhookId: string | null;

  @Column({ type: 'text' })
  url: string;

  /** The JSON body exactly as it is sent. */
  @Column({ type: 'text' })
  body: string;

  /** SecretBox-sealed credential; opened only to build the request headers ('' for endpoint deliveries). */
  @Column({ type: 'text' })
  sealedSecret: string;

  @Column({ type: 'boolean', default: false })
  apiKeyHeader: boolean;

  @Column({ type: 'varchar', length: 16 })
  status: DeliveryStatus;

  /** Attempts started (claimed); incremented when a replica takes the lease. */
  @Column({ type: 'int', default: 0 })
  attemptCount: number;

  @EpochMsColumn()
  nextAttemptAt: number;

  @Column({ type: 'varchar', length: 64, nullable: true })
  leaseOwner: string | null;

  @EpochMsColumn({ nullable: true })
  leaseExpiresAt: number | null;

  @Column({ type: 'int', nullable: true })
  lastHttpStatus: number | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  lastError: string | null;

  @EpochMsColumn()
  createdAt: number;

  @EpochMsColumn()
  updatedAt: number;

  @EpochMsColumn({ nullable: true })
  completedAt: number | null;
}
