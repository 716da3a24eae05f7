import { Column, Entity, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../../database/columns';
import type { AccountId } from '../../common/account-id';

/** A chat-app business number of one account at the official provider (besides the platform number). */
@Entity('official_senders')
export class OfficialSenderEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ type: 'varchar', length: 40 })
  accountId: AccountId;

  @Column({ type: 'varchar', length: 200 })
  displayName: string;

  @Column({ type: 'varchar', length: 20, nullable: true })
  phoneNumber: string | null;

  /** Provider's phone-number id (cloud API), used when sending. */
  @Column({ type: 'varchar', length: 100, nullable: true })
  phoneNumberId: string | null;

  /** Business account id at the provider; templates of this sender are submitted there. */
  @Column({ type: 'varchar', length: 100, nullable: true })
  wabaId: string | null;

  @Column({ type: 'boolean', default: false })
  isDefault: boolean;

  @EpochMsColumn()
  createdAt: number;
}
