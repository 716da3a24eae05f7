import { Column, Entity, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../../database/columns';
import type { AccountId } from '../../common/account-id';

export type SmsSenderStatus = 'pending' | 'approved' | 'rejected';
export const SMS_SENDER_TYPES = ['transactional', 'promotional'] as const;
export type SmsSenderType = (typeof SMS_SENDER_TYPES)[number];

@Entity('sms_senders')
export class SmsSenderEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ type: 'varchar', length: 40 })
  accountId: AccountId;

  /** As requested (case kept). */
  @Column({ type: 'varchar', length: 11 })
  name: string;

  /** Lower-cased name: unique per account on both dialects, whatever the collation. */
  @Column({ type: 'varchar', length: 11 })
  nameKey: string;

  @Column({ type: 'varchar', length: 16 })
  status: SmsSenderStatus;

  /** `promotional` names end in `-AD` and send marketing only; `transactional` ones never send marketing. */
  @Column({ type: 'varchar', length: 16, default: 'transactional' })
  type: SmsSenderType;

  @Column({ type: 'boolean', default: false })
  isDefault: boolean;

  /** The account id while this sender is the default, else null: a unique index allows one default per account. */
  @Column({ type: 'varchar', length: 40, nullable: true })
  defaultKey: string | null;

  @Column({ type: 'text', nullable: true })
  webhookUrl: string | null;

  /** SecretBox-sealed webhookSecret; never returned, never logged. */
  @Column({ type: 'text', nullable: true })
  sealedWebhookSecret: string | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  reviewReason: string | null;

  @EpochMsColumn({ nullable: true })
  reviewedAt: number | null;

  @EpochMsColumn()
  createdAt: number;

  @EpochMsColumn()
  updatedAt: number;
}
