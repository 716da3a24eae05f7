import { Column, Entity, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../../database/columns';
import type {
  BodyParameter,
  HeaderType,
  OtpOptions,
  TemplateButton,
  TemplateCategory,
  TemplateProvider,
  TemplateStatus,
  TemplateSubType,
} from '../template.types';
import type { AccountId } from '../../common/account-id';

/** JSON stored in TEXT columns (portable across every database we run on). */
const json = {
  to: (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v)),
  from: (v: string | null) => (v === null || v === undefined || v === '' ? null : JSON.parse(v)),
};

export const DEFAULT_SCOPE = '*';

/** Column size of rejection_reason: longer provider reasons are cut to it. */
export const REJECTION_REASON_MAX = 500;

@Entity('templates')
export class TemplateEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  /** Owning account id, or DEFAULT_SCOPE for operator templates visible to every account. */
  @Column({ type: 'varchar', length: 40 })
  scope: string;

  @Column({ type: 'varchar', length: 40, nullable: true })
  accountId: AccountId | null;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 20 })
  category: TemplateCategory;

  @Column({ type: 'varchar', length: 20 })
  subType: TemplateSubType;

  @Column({ type: 'varchar', length: 20 })
  status: TemplateStatus;

  /** '' means none. */
  @Column({ type: 'varchar', length: 20, default: '' })
  language: string;

  @Column({ type: 'text', nullable: true })
  body: string | null;

  @Column({ type: 'text', nullable: true })
  content: string | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  emailSubject: string | null;

  @Column({ type: 'text', nullable: true, transformer: json })
  bodyParameters: BodyParameter[] | null;

  @Column({ type: 'varchar', length: 20, nullable: true })
  headerType: HeaderType | null;

  @Column({ type: 'text', nullable: true })
  headerValue: string | null;

  @Column({ type: 'varchar', length: 40, nullable: true })
  headerAssetId: string | null;

  @Column({ type: 'boolean', default: false })
  allowsHeaderMediaOverride: boolean;

  @Column({ type: 'varchar', length: 200, nullable: true })
  footer: string | null;

  @Column({ type: 'text', nullable: true, transformer: json })
  buttons: TemplateButton[] | null;

  @Column({ type: 'text', nullable: true, transformer: json })
  urlButtonVariables: string[] | null;

  @Column({ type: 'int', default: 0 })
  variableCount: number;

  @Column({ type: 'varchar', length: 20 })
  provider: TemplateProvider;

  @Column({ type: 'varchar', length: 200, nullable: true })
  providerTemplateId: string | null;

  @Column({ type: 'varchar', length: 40, nullable: true })
  manualProvider: string | null;

  @Column({ type: 'varchar', length: 40, nullable: true })
  creationMode: string | null;

  /** 'platform' or an official_senders id; null for non-official templates. */
  @Column({ type: 'varchar', length: 40, nullable: true })
  officialSenderId: string | null;

  @Column({ type: 'text', nullable: true, transformer: json })
  otp: OtpOptions | null;

  @Column({ type: 'varchar', length: REJECTION_REASON_MAX, nullable: true })
  rejectionReason: string | null;

  /** Status-poll lease (compare-and-set on this value). The table's poll_lease_owner column is no longer mapped. */
  @EpochMsColumn({ nullable: true })
  pollLeaseExpiresAt: number | null;

  @EpochMsColumn()
  createdAt: number;

  @EpochMsColumn()
  updatedAt: number;
}
