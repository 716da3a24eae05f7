import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ChannelName } from '../../config/app-config';
import { EpochMsColumn } from '../../database/columns';
import type { AccountId } from '../../common/account-id';

/**
 * `sending`: row written before the code message goes out (invisible to checks; deleted if the send fails).
 * `pending`: delivered, checkable until `expiresAt`. `approved`: the right code was checked once.
 * Expiry and the attempts lock are derived from `expiresAt` and `attempts`, never written by a race.
 */
export type VerificationState = 'sending' | 'pending' | 'approved';

@Entity('verifications')
export class VerificationEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ type: 'varchar', length: 40 })
  accountId: AccountId;

  @Column({ type: 'varchar', length: 20 })
  channel: ChannelName;

  /** Normalised recipient (E.164 phone, lowercased email, or chat id). */
  @Column({ type: 'varchar', length: 320 })
  recipient: string;

  /** HMAC-SHA-256 (hex) of `<id>:<code>`; the code itself is never stored. */
  @Column({ type: 'varchar', length: 64 })
  codeHash: string;

  @Column({ type: 'varchar', length: 10 })
  status: VerificationState;

  /** Checks consumed (claimed atomically before comparing). */
  @Column({ type: 'int', default: 0 })
  attempts: number;

  /** The message that carried the code (message log id). */
  @Column({ type: 'varchar', length: 40, nullable: true })
  messageId: string | null;

  @EpochMsColumn()
  expiresAt: number;

  @EpochMsColumn({ nullable: true })
  approvedAt: number | null;

  @EpochMsColumn()
  createdAt: number;
}
