import { Column, Entity, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../../database/columns';
import type { AccountId } from '../../common/account-id';

/** An SMS the SMSC delivered to one of our numbers or sender names (SMPP deliver_sm). */
@Entity('inbound_sms')
export class InboundSmsEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  /** The account whose approved sender the SMS was sent to; null when none (or several) matched. */
  @Column({ type: 'varchar', length: 40, nullable: true })
  accountId: AccountId | null;

  @Column({ type: 'varchar', length: 40, nullable: true })
  senderId: string | null;

  @Column({ type: 'varchar', length: 32 })
  fromAddress: string;

  @Column({ type: 'varchar', length: 32 })
  toAddress: string;

  @Column({ type: 'text' })
  text: string;

  @Column({ type: 'varchar', length: 200, nullable: true })
  providerMessageId: string | null;

  @EpochMsColumn()
  receivedAt: number;

  /** 1 for a whole SMS; for a concatenated one its parts, and how many arrived (fewer: stored partial). */
  @Column({ type: 'int', default: 1 })
  partsTotal: number;

  @Column({ type: 'int', default: 1 })
  partsReceived: number;

  /** What a redelivery of the same SMS carries (InboundSmsService). */
  @Column({ type: 'varchar', length: 64, nullable: true })
  dedupeKey: string | null;
}
