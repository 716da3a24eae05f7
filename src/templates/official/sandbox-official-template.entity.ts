import { Column, Entity, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../../database/columns';
import type { ProviderReviewStatus } from './provider-template-status';

/** A template the sandbox official provider knows: submitted through us or registered by an operator. */
@Entity('sandbox_official_templates')
export class SandboxOfficialTemplateEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  /** Business account the template is filed under (null: the unset platform account). */
  @Column({ type: 'varchar', length: 100, nullable: true })
  wabaId: string | null;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 20 })
  language: string;

  @Column({ type: 'varchar', length: 20 })
  status: ProviderReviewStatus;

  @Column({ type: 'int', default: 0 })
  variableCount: number;

  @EpochMsColumn()
  createdAt: number;
}
