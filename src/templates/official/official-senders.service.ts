import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { isLiveAccount } from '../../accounts/account-mode';
import { AppConfig } from '../../config/app-config';
import { Clock } from '../../common/clock';
import { ApiError } from '../../common/errors';
import { newId } from '../../common/ids';
import { OfficialSenderEntity } from '../entities/official-sender.entity';
import type { TemplateRoute } from '../../providers/provider.types';
import type { OfficialSenderView } from '../template.types';
import { UnitOfWork } from '../../database/unit-of-work';
import type { AccountId } from '../../common/account-id';

export const PLATFORM_SENDER_ID = 'platform';

/** A resolved sender: the view plus the business account its templates are filed under. */
export interface ResolvedOfficialSender {
  view: OfficialSenderView;
  wabaId: string | null;
  /** True when templates are filed under the platform's business account (shared by every tenant). */
  platformAccount: boolean;
}

export interface OfficialSenderInput {
  displayName: string;
  phoneNumber?: string | null;
  phoneNumberId?: string | null;
  wabaId?: string | null;
  isDefault?: boolean;
}

/** The platform number plus each account's own official chat-app numbers. */
@Injectable()
export class OfficialSendersService {
  constructor(
    @InjectRepository(OfficialSenderEntity) private readonly senders: Repository<OfficialSenderEntity>,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly uow: UnitOfWork,
  ) {}

  async list(accountId: AccountId): Promise<OfficialSenderView[]> {
    const own = await this.senders.find({ where: { accountId }, order: { id: 'ASC' } });
    const platform = this.platform(accountId, !own.some((s) => s.isDefault));
    return [platform.view, ...own.map((s) => this.map(s).view)];
  }

  /** `platform`, an own sender id, or (when absent) the account default, else the platform number. */
  async resolve(accountId: AccountId | null, senderId: string | null | undefined): Promise<ResolvedOfficialSender> {
    if (senderId === PLATFORM_SENDER_ID)
      return this.platform(accountId, accountId === null || !(await this.hasDefault(accountId)));
    if (senderId === undefined || senderId === null) {
      const def = accountId === null ? null : await this.senders.findOne({ where: { accountId, isDefault: true } });
      return def ? this.map(def) : this.platform(accountId, true);
    }
    const own = accountId === null ? null : await this.senders.findOne({ where: { id: senderId, accountId } });
    if (!own)
      throw ApiError.validation(
        'officialSenderId is not an official sender of this account (use "platform" for the platform number)',
      );
    return this.map(own);
  }

  /** The accounts with an own sender of that provider phone-number id (an inbound message's owner when one). */
  async accountsOfPhoneNumberId(phoneNumberId: string): Promise<AccountId[]> {
    const rows = await this.senders.find({ where: { phoneNumberId }, select: { accountId: true } });
    return [...new Set(rows.map((r) => r.accountId))];
  }

  /** View of a sender recorded on a template of `accountId` (a deleted or another account's sender reads as null). */
  async viewOf(accountId: AccountId | null, senderId: string | null): Promise<OfficialSenderView | null> {
    if (senderId === null) return null;
    if (senderId === PLATFORM_SENDER_ID)
      return this.platform(accountId, accountId === null || !(await this.hasDefault(accountId))).view;
    const own = accountId === null ? null : await this.senders.findOne({ where: { id: senderId, accountId } });
    return own ? this.map(own).view : null;
  }

  /**
   * The number an official template of `accountId` recorded on `senderId` goes out from. Only the
   * template's own account's sender counts (a sender of another account, or a missing one, routes
   * nowhere). An own sender without a phone-number id falls back to the platform number only when
   * its templates are filed under the platform's business account: there the platform number
   * addresses this very template by name; under the account's own business account the same name
   * could be another template, so it routes nowhere.
   */
  async routeOf(accountId: AccountId | null, senderId: string | null): Promise<TemplateRoute> {
    if (senderId === null || senderId === PLATFORM_SENDER_ID) return { via: 'platform' };
    const own = accountId === null ? null : await this.senders.findOne({ where: { id: senderId, accountId } });
    if (!own) return { via: 'account', phoneNumberId: null };
    if (own.phoneNumberId) return { via: 'account', phoneNumberId: own.phoneNumberId };
    return this.map(own).platformAccount ? { via: 'platform' } : { via: 'account', phoneNumberId: null };
  }

  async create(accountId: AccountId, input: OfficialSenderInput): Promise<OfficialSenderView> {
    const entity = this.senders.create({
      id: newId('osn'),
      accountId,
      displayName: input.displayName,
      phoneNumber: input.phoneNumber ?? null,
      phoneNumberId: input.phoneNumberId ?? null,
      wabaId: input.wabaId ?? null,
      isDefault: input.isDefault ?? false,
      createdAt: this.clock.now(),
    });
    await this.uow.transaction(async ({ manager: em }) => {
      if (entity.isDefault) await em.update(OfficialSenderEntity, { accountId, isDefault: true }, { isDefault: false });
      await em.insert(OfficialSenderEntity, entity);
    });
    return this.map(entity).view;
  }

  private async hasDefault(accountId: AccountId): Promise<boolean> {
    return (await this.senders.count({ where: { accountId, isDefault: true } })) > 0;
  }

  /** The platform number belongs to no account: both modes share it, and it reads in the mode of `viewerAccountId`. */
  private platform(viewerAccountId: string | null, isDefault: boolean): ResolvedOfficialSender {
    const phoneNumber = this.config.chatapp.platformNumber;
    const displayName = this.config.chatapp.platformDisplayName;
    return {
      view: {
        id: PLATFORM_SENDER_ID,
        scope: 'platform',
        isPlatform: true,
        isDefault,
        label: `${displayName} (${phoneNumber})`,
        phoneNumber,
        displayName,
        livemode: viewerAccountId === null || isLiveAccount(viewerAccountId),
      },
      wabaId: this.config.chatapp.wabaId,
      platformAccount: true,
    };
  }

  private map(s: OfficialSenderEntity): ResolvedOfficialSender {
    return {
      view: {
        id: s.id,
        scope: 'account',
        isPlatform: false,
        isDefault: s.isDefault,
        label: s.phoneNumber ? `${s.displayName} (${s.phoneNumber})` : s.displayName,
        phoneNumber: s.phoneNumber,
        displayName: s.displayName,
        livemode: isLiveAccount(s.accountId),
      },
      wabaId: s.wabaId ?? this.config.chatapp.wabaId,
      platformAccount: s.wabaId === null || s.wabaId === this.config.chatapp.wabaId,
    };
  }
}
