import { Column, Entity, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../../database/columns';
import type { AccountId } from '../../common/account-id';

/** One row per (account, recipient): sends counted in a fixed window that starts with its first send. */
@Entity('verification_send_windows')
export class VerificationSendWindowEntity {
  /** SHA-256 (hex) of `<accountId>:<recipient>`: a short fixed-length key for any recipient. */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ type: 'varchar', length: 40 })
  accountId: AccountId;

  @EpochMsColumn()
  windowStartedAt: number;

  @Column({ type: 'int', default: 0 })
  sends: number;
}
