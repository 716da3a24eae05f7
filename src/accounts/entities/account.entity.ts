import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { AccountId } from '../../common/account-id';
import { EpochMsColumn, MoneyColumn } from '../../database/columns';

@Entity('accounts')
export class AccountEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: AccountId;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'boolean', default: true })
  phoneVerified: boolean;

  @Column({ type: 'boolean', default: true })
  subscriptionActive: boolean;

  /** Minor units. Only LedgerService moves it, with conditional updates that never go below zero. */
  @MoneyColumn()
  walletBalance: number;

  @Column({ type: 'varchar', length: 3 })
  currency: string;

  @Column({ type: 'varchar', length: 100, nullable: true })
  planName: string | null;

  @Column({ type: 'int', default: 0 })
  messageQuota: number;

  @Column({ type: 'int', default: 0 })
  messagesUsed: number;

  @Column({ type: 'int', default: 0 })
  freeMessages: number;

  /** Days this account's messages, jobs and inbound messages are kept; null: the operator's default (RETENTION_*_DAYS). */
  @Column({ type: 'int', nullable: true })
  retentionDays: number | null;

  @EpochMsColumn()
  createdAt: number;

  @EpochMsColumn()
  updatedAt: number;
}
