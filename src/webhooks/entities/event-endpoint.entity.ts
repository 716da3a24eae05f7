import { Column, Entity, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../../database/columns';
import type { AccountId } from '../../common/account-id';

export type EventEndpointStatus = 'enabled' | 'disabled';

/** An event subscription: a URL, the events it wants, and its Standard Webhooks signing secret(s). */
@Entity('webhook_event_endpoints')
export class EventEndpointEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ type: 'varchar', length: 40 })
  accountId: AccountId;

  @Column({ type: 'text' })
  url: string;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description: string | null;

  /** JSON array of exact names, `x.*` prefixes or `*`. */
  @Column({ type: 'text' })
  events: string;

  @Column({ type: 'varchar', length: 16 })
  status: EventEndpointStatus;

  @Column({ type: 'varchar', length: 500, nullable: true })
  disabledReason: string | null;

  /** `whsec_...`, sealed (SecretBox). */
  @Column({ type: 'text' })
  sealedSecret: string;

  /** The secret before the last rotation: it signs alongside the new one until it expires. */
  @Column({ type: 'text', nullable: true })
  previousSealedSecret: string | null;

  @EpochMsColumn({ nullable: true })
  previousSecretExpiresAt: number | null;

  /** Deliveries that failed in a row (all attempts spent); reset by any delivered one. */
  @Column({ type: 'int', default: 0 })
  consecutiveFailures: number;

  @EpochMsColumn()
  createdAt: number;

  @EpochMsColumn()
  updatedAt: number;
}
