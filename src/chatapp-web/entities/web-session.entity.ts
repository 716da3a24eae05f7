import { Column, Entity, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../../database/columns';
import type { AccountId } from '../../common/account-id';

export type WebSessionStatus = 'ready' | 'starting' | 'stopped' | 'failed';
/** `web`: a chat-app web session; `bot`: a messaging-bot id. Both share one name space per account. */
export type WebSessionKind = 'web' | 'bot';
export type WebSessionProviderName = 'sandbox' | 'waha';

@Entity('web_sessions')
export class WebSessionEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ type: 'varchar', length: 40 })
  accountId: AccountId;

  /** The spec's `accountId` of the chat route and of `conversationContext`. */
  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'varchar', length: 10 })
  kind: WebSessionKind;

  @Column({ type: 'varchar', length: 20 })
  provider: WebSessionProviderName;

  /** Session name at the provider (WAHA's `{session}`); equals `name` unless the operator set it. */
  @Column({ type: 'varchar', length: 100 })
  providerSession: string;

  /** Last known status (sandbox: the truth; WAHA: refreshed on every live call and session.status hook). */
  @Column({ type: 'varchar', length: 20 })
  status: WebSessionStatus;

  /** SecretBox-sealed HMAC key that authenticates the provider's webhook (WAHA sessions only). */
  @Column({ type: 'text', nullable: true })
  hookSecret: string | null;

  @EpochMsColumn()
  createdAt: number;

  @EpochMsColumn()
  updatedAt: number;
}
