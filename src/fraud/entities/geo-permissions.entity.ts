import { Column, Entity, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../../database/columns';
import type { AccountId } from '../../common/account-id';

/**
 * An account's geo permissions (no row: the configured default everywhere). Each list is
 * comma-separated ISO 3166-1 codes, `*` for every country or '' for none.
 */
@Entity('geo_permissions')
export class GeoPermissionsEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  accountId: AccountId;

  @Column({ type: 'text' })
  localSms: string;

  @Column({ type: 'text' })
  chatapp: string;

  @Column({ type: 'text' })
  chatappWeb: string;

  /** The operator-set ceiling: the countries the owner may choose from. */
  @Column({ type: 'text' })
  ownerSelectable: string;

  @EpochMsColumn()
  updatedAt: number;
}
