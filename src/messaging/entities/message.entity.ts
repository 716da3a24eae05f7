import { Column, Entity, PrimaryColumn } from 'typeorm';
import { EpochMsColumn, MoneyColumn } from '../../database/columns';
import type { SmsEncoding } from '../../common/sms/sms-segments';
import type { MessageFailureCode } from '../send-outcome';
import type { MessagePurpose } from '../validation/validated-message';
import type { AccountId } from '../../common/account-id';

/**
 * Every status of the message log. Forward only: scheduled < queued < sent < delivered < read, or to
 * failed; `cancelled`: a scheduled message cancelled before a sender took it (refunded).
 */
export const MESSAGE_STATUSES = ['scheduled', 'queued', 'sent', 'delivered', 'read', 'failed', 'cancelled'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** The message log: every accepted message, how it was paid and what the provider said. */
@Entity('messages')
export class MessageEntity {
  @PrimaryColumn({ type: 'varchar', length: 80 })
  id: string;

  @Column({ type: 'varchar', length: 40 })
  accountId: AccountId;

  @Column({ type: 'varchar', length: 20 })
  channel: string;

  @Column({ type: 'varchar', length: 20 })
  messageType: string;

  @Column({ type: 'varchar', length: 320 })
  recipient: string;

  @Column({ type: 'varchar', length: 100, nullable: true })
  sender: string | null;

  @Column({ type: 'varchar', length: 40, nullable: true })
  templateId: string | null;

  @Column({ type: 'varchar', length: 16 })
  status: MessageStatus;

  /** `transactional` or `marketing` (consent rules); rows written before purposes read transactional. */
  @Column({ type: 'varchar', length: 16, default: 'transactional' })
  purpose: MessagePurpose;

  /** Minor units taken from the wallet (0 when free messages or plan quota paid, or refunded). */
  @MoneyColumn()
  cost: number;

  @Column({ type: 'varchar', length: 10, nullable: true })
  paidFrom: string | null;

  /** local_sms: `gsm7` or `ucs2`; null on other channels (and on SMS logged before segments were counted). */
  @Column({ type: 'varchar', length: 8, nullable: true })
  encoding: SmsEncoding | null;

  /** local_sms: the parts the text takes, each one billable unit; null on other channels (one unit). */
  @Column({ type: 'int', nullable: true })
  segments: number | null;

  @EpochMsColumn({ nullable: true })
  refundedAt: number | null;

  @Column({ type: 'varchar', length: 200, nullable: true })
  providerMessageId: string | null;

  @Column({ type: 'varchar', length: 50, nullable: true })
  errorCode: MessageFailureCode | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  errorMessage: string | null;

  @Column({ type: 'varchar', length: 40, nullable: true })
  bulkJobId: string | null;

  @Column({ type: 'int', nullable: true })
  rowIndex: number | null;

  /** The validated message (JSON), kept only for scheduled sends. */
  @Column({ type: 'text', nullable: true })
  payload: string | null;

  @EpochMsColumn({ nullable: true })
  scheduledAt: number | null;

  @Column({ type: 'varchar', length: 40, nullable: true })
  leaseOwner: string | null;

  @EpochMsColumn({ nullable: true })
  leaseExpiresAt: number | null;

  @Column({ type: 'int', default: 0 })
  attempts: number;

  @EpochMsColumn()
  createdAt: number;

  @EpochMsColumn()
  updatedAt: number;

  @EpochMsColumn({ nullable: true })
  sentAt: number | null;

  /** Delivery receipts (lifecycle/): when the provider says it was delivered, read, or not delivered. */
  @EpochMsColumn({ nullable: true })
  deliveredAt: number | null;

  @EpochMsColumn({ nullable: true })
  readAt: number | null;

  @EpochMsColumn({ nullable: true })
  failedAt: number | null;

  /** The provider's own code of a failure receipt (SMPP `err:`, Cloud API error code...). */
  @Column({ type: 'varchar', length: 100, nullable: true })
  providerErrorCode: string | null;

  /** Grows with every status change (message events carry it, so a receiver can drop stale ones). */
  @Column({ type: 'int', default: 0 })
  sequence: number;

  /** Last hand-off to a provider without lookup (an unknown outcome then cannot be asked about). */
  @EpochMsColumn({ nullable: true })
  handedOffAt: number | null;
}
