import { Column, Entity, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../../database/columns';
import { REMOTE_ID_MAX_LENGTH } from '../inbound/inbound.types';
import type { AccountId } from '../../common/account-id';

/** `queued`: an outbox delivery was written; `skipped`: the account had no web-session webhook. */
export type InboundStatus = 'queued' | 'skipped';

/** One accepted inbound message; unique (sessionId, remoteMessageId) makes delivery exactly-once. */
@Entity('web_inbound_messages')
export class InboundMessageEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ type: 'varchar', length: 40 })
  accountId: AccountId;

  @Column({ type: 'varchar', length: 40 })
  sessionId: string;

  @Column({ type: 'varchar', length: REMOTE_ID_MAX_LENGTH })
  remoteMessageId: string;

  @Column({ type: 'varchar', length: REMOTE_ID_MAX_LENGTH })
  remoteChatId: string;

  @Column({ type: 'varchar', length: 20 })
  status: InboundStatus;

  @Column({ type: 'varchar', length: 40, nullable: true })
  deliveryId: string | null;

  @EpochMsColumn()
  createdAt: number;
}
