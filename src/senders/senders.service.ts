import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { isLiveAccount } from '../accounts/account-mode';
import { Clock } from '../common/clock';
import { Coalescer } from '../common/coalescer';
import { ApiError } from '../common/errors';
import { newId } from '../common/ids';
import { SecretBox } from '../common/secret-box';
import { iso } from '../database/columns';
import { isUniqueViolation } from '../database/db-errors';
import { UnitOfWork } from '../database/unit-of-work';
import type { ApprovedSender } from '../messaging/validation/lookups';
import { WebhooksService } from '../webhooks/webhooks.service';
import { CreateSmsSenderDto } from './dto/create-sms-sender.dto';
import { SmsSenderEntity, SmsSenderStatus, type SmsSenderType } from './entities/sms-sender.entity';
import type { AccountId } from '../common/account-id';

/** The spec's SMS sender resource (creation response). */
export interface SmsSenderView {
  id: string;
  name: string;
  status: SmsSenderStatus;
  type: SmsSenderType;
  isDefault: boolean;
  webhookConfigured: boolean;
  livemode: boolean;
}

/** List / review view: the resource plus review details. */
export interface SmsSenderDetailView extends SmsSenderView {
  reason: string | null;
  reviewedAt: string | null;
  createdAt: string;
}

export const toSenderView = (s: SmsSenderEntity): SmsSenderView => ({
  id: s.id,
  name: s.name,
  status: s.status,
  type: s.type,
  isDefault: s.isDefault,
  webhookConfigured: s.webhookUrl !== null,
  livemode: isLiveAccount(s.accountId),
});

export const toSenderDetailView = (s: SmsSenderEntity): SmsSenderDetailView => ({
  ...toSenderView(s),
  reason: s.reviewReason,
  reviewedAt: iso(s.reviewedAt),
  createdAt: iso(s.createdAt) as string,
});

@Injectable()
export class SendersService {
  /** Default-sender reads of validation contexts made at once (hundreds of jobs' windows), one read for many. */
  private readonly defaults: Coalescer<AccountId, ApprovedSender | null>;

  constructor(
    @InjectRepository(SmsSenderEntity) private readonly senders: Repository<SmsSenderEntity>,
    private readonly webhooks: WebhooksService,
    private readonly secretBox: SecretBox,
    private readonly clock: Clock,
    uow: UnitOfWork,
  ) {
    this.defaults = new Coalescer({ batch: (ids) => this.defaultsOf(ids), maxWeight: 500, ...uow.coalescing });
  }

  /** An approved sender of the account by name (case-insensitive), for the messaging validator. */
  async findApprovedByName(accountId: AccountId, name: string): Promise<ApprovedSender | null> {
    if (typeof name !== 'string' || name.length === 0 || name.length > 11) return null;
    const row = await this.senders.findOneBy({ accountId, nameKey: name.toLowerCase(), status: 'approved' });
    return row ? approved(row) : null;
  }

  /** The account's default approved sender (the first one approved), or null. */
  async findDefaultApproved(accountId: AccountId): Promise<ApprovedSender | null> {
    return this.defaults.submit(accountId);
  }

  /** The default approved senders of several accounts in one read (one default per account: ux on default_key). */
  private async defaultsOf(ids: AccountId[]): Promise<(ApprovedSender | null)[]> {
    const rows = await this.senders.findBy({ accountId: In([...new Set(ids)]), isDefault: true, status: 'approved' });
    const byAccount = new Map(rows.map((r) => [r.accountId, approved(r)]));
    return ids.map((id) => byAccount.get(id) ?? null);
  }

  async create(accountId: AccountId, dto: CreateSmsSenderDto): Promise<SmsSenderView> {
    const webhookUrl = dto.webhookUrl ?? null;
    if (webhookUrl === null && dto.webhookSecret != null) {
      throw ApiError.validation('webhookUrl is required when webhookSecret is present');
    }
    if (webhookUrl !== null) await this.webhooks.assertAllowedTarget(webhookUrl, 'webhookUrl');
    const type = dto.type ?? 'transactional';
    // The DTO admits both shapes; the suffix must match the type (CST: promotional names end in -AD).
    if (type === 'promotional' && !dto.name.endsWith('-AD'))
      throw ApiError.validation('name of a promotional sender must end in -AD (at most 11 characters with the suffix)');
    if (type === 'transactional' && dto.name.includes('-'))
      throw ApiError.validation('name ending in -AD is reserved for promotional senders (type "promotional")');
    const nameKey = dto.name.toLowerCase();
    const now = this.clock.now();
    const row: SmsSenderEntity = {
      id: newId('snd'),
      accountId,
      name: dto.name,
      nameKey,
      status: 'pending',
      type,
      isDefault: false,
      defaultKey: null,
      webhookUrl,
      sealedWebhookSecret: webhookUrl !== null && dto.webhookSecret ? this.secretBox.seal(dto.webhookSecret) : null,
      reviewReason: null,
      reviewedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await this.senders.insert(row);
    } catch (err) {
      // The unique index (account, name key) is the only duplicate check: sequential or concurrent, same 400.
      if (isUniqueViolation(err)) throw duplicateName(dto.name);
      throw err;
    }
    return toSenderView(row);
  }

  async list(accountId: AccountId): Promise<SmsSenderDetailView[]> {
    const rows = await this.senders.find({ where: { accountId }, order: { id: 'ASC' }, take: 500 });
    return rows.map(toSenderDetailView);
  }
}

const approved = (row: SmsSenderEntity): ApprovedSender => ({ id: row.id, name: row.name, type: row.type });

function duplicateName(name: string): ApiError {
  return ApiError.validation(`name "${name}" is already used by a sender of this account`);
}
