import { Column, Entity, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../../database/columns';
import type { AccountId } from '../../common/account-id';

export type EndpointKind = 'chatapp_web';

/** An account's webhook target from developer settings; one per (account, kind). */
@Entity('webhook_endpoints')
export class WebhookEndpointEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ type: 'varchar', length: 40 })
  accountId: AccountId;

  @Column({ type: 'varchar', length: 32 })
  kind: EndpointKind;

  @Column({ type: 'text' })
  url: string;

  /** The generated WEBHOOK_API_KEY, sealed; shown in full only on create and rotate. */
  @Column({ type: 'text' })
  sealedSecret: string;

  /** Last characters of the key, for the masked view. */
  @Column({ type: 'varchar', length: 8 })
  secretLast4: string;

  @EpochMsColumn()
  createdAt: number;

  @EpochMsColumn()
  updatedAt: number;
}
