import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintToNumber, EpochMsColumn } from '../../database/columns';
import type { MediaHeaderType } from '../template.types';
import type { AccountId } from '../../common/account-id';

/** An uploaded header file. The id is the unguessable public asset id of the preview link. */
@Entity('template_media')
export class TemplateMediaEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  /** Null for media of default templates (operator). */
  @Column({ type: 'varchar', length: 40, nullable: true })
  accountId: AccountId | null;

  @Column({ type: 'varchar', length: 20 })
  headerType: MediaHeaderType;

  @Column({ type: 'varchar', length: 100 })
  mimeType: string;

  @Column({ type: 'bigint', transformer: bigintToNumber, default: 0 })
  size: number;

  @Column({ type: 'varchar', length: 200 })
  storageKey: string;

  @EpochMsColumn()
  createdAt: number;
}
