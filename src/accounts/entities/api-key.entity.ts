import { Column, Entity, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../../database/columns';
import type { KeyRole, Permission } from '../permissions';
import type { AccountId } from '../../common/account-id';

@Entity('api_keys')
export class ApiKeyEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ type: 'varchar', length: 40 })
  accountId: AccountId;

  /** Chosen by the owner (1..100 characters) so a key can be recognised and revoked. */
  @Column({ type: 'varchar', length: 100 })
  name: string;

  /** SHA-256 (hex) of the key; the key itself is shown once and never stored. */
  @Column({ type: 'varchar', length: 64 })
  keyHash: string;

  /** First characters of the key, to recognise it in listings. */
  @Column({ type: 'varchar', length: 16 })
  keyPrefix: string;

  @Column({ type: 'varchar', length: 10 })
  role: KeyRole;

  @Column({ type: 'simple-json' })
  permissions: Permission[];

  @EpochMsColumn()
  createdAt: number;

  @EpochMsColumn({ nullable: true })
  revokedAt: number | null;

  /** When the key last authenticated, written at most once a minute per key (ApiKeyAuthService). */
  @EpochMsColumn({ nullable: true })
  lastUsedAt: number | null;
}
