import { Column, Entity, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../../database/columns';
import type { AccountId } from '../../common/account-id';

/** An account's marketing compliance settings (no row: the defaults of `compliance-rules.ts`). */
@Entity('compliance_settings')
export class ComplianceSettingsEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  accountId: AccountId;

  /** Local `HH:MM` in the recipient's zone; the window is [start, end). */
  @Column({ type: 'varchar', length: 5 })
  windowStart: string;

  @Column({ type: 'varchar', length: 5 })
  windowEnd: string;

  /** Comma-separated `mon`..`sun`. */
  @Column({ type: 'varchar', length: 40 })
  windowDays: string;

  /** JSON object: ISO country code -> IANA zone, for countries with several zones. */
  @Column({ type: 'text' })
  defaultTimeZones: string;

  @Column({ type: 'text' })
  footerAr: string;

  @Column({ type: 'text' })
  footerEn: string;

  /** Comma-separated lower-case host names. */
  @Column({ type: 'text' })
  allowedLinkDomains: string;

  @EpochMsColumn()
  updatedAt: number;
}
