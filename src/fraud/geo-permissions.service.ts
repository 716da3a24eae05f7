import { Inject, Injectable } from '@nestjs/common';
import { AccountsService } from '../accounts/accounts.service';
import { AUDIT_TRAIL, AuditTrail } from '../common/audit/audit-trail';
import { Clock } from '../common/clock';
import { ApiError } from '../common/errors';
import { iso } from '../database/columns';
import { AppConfig, type CountryAllowList } from '../config/app-config';
import type { DestinationCountries, GeoChannel, GeoPermissionsLookup } from '../messaging/validation/lookups';
import { GeoPermissionsEntity } from './entities/geo-permissions.entity';
import { decodeList, encodeList, intersect, outside, readList, showList } from './geo-permission-rules';
import { GeoPermissionsRepository } from './geo-permissions.repository';
import type { AccountId } from '../common/account-id';

export interface GeoPermissionsView {
  channels: Record<GeoChannel, string[]>;
  ownerSelectable: string[];
  source: 'default' | 'account';
  updatedAt: string | null;
}

export type ChannelListsInput = Partial<Record<GeoChannel, string[]>>;

interface Permissions {
  channels: DestinationCountries;
  ceiling: CountryAllowList;
  /** The stored ceiling (null: no row, the configured default applies). */
  storedCeiling: string | null;
  updatedAt: number | null;
}

/**
 * Geo permissions (issue 31): the destination countries an account may send to per phone channel.
 * The operator sets the ceiling (and may set the lists); the owner chooses lists within the ceiling.
 * Messaging reads them through its GEO_PERMISSIONS port.
 */
@Injectable()
export class GeoPermissionsService implements GeoPermissionsLookup {
  constructor(
    private readonly repo: GeoPermissionsRepository,
    private readonly accounts: AccountsService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    @Inject(AUDIT_TRAIL) private readonly audit: AuditTrail,
  ) {}

  async allowedDestinations(accountId: AccountId): Promise<DestinationCountries> {
    return (await this.read(accountId)).channels;
  }

  async view(accountId: AccountId): Promise<GeoPermissionsView> {
    return this.map(await this.read(accountId));
  }

  /** The operator's view of any account (404 for an unknown one). */
  async viewForOperator(accountId: AccountId): Promise<GeoPermissionsView> {
    await this.mustExist(accountId);
    return this.view(accountId);
  }

  /** The owner's change: each list given must stay within the operator's ceiling. */
  async setByOwner(accountId: AccountId, input: ChannelListsInput): Promise<GeoPermissionsView> {
    const current = await this.read(accountId);
    const channels = this.lists(input, current.channels, current.ceiling, () => null);
    const written = await this.repo.setChannelsUnder(
      accountId,
      current.storedCeiling,
      {
        localSms: encodeList(channels.local_sms),
        chatapp: encodeList(channels.chatapp),
        chatappWeb: encodeList(channels.chatapp_web),
      },
      encodeList(this.config.fraud.defaultAllowedCountries),
      this.clock.now(),
    );
    if (!written) throw new ApiError('CONFLICT', 'The geo permissions changed meanwhile; read them and try again');
    return this.changed(accountId, current);
  }

  /**
   * The operator's change: a new ceiling, and lists within it. A list not given keeps the account's
   * own list cut to the new ceiling; an account without its own permissions starts from the ceiling.
   */
  async setByOperator(
    accountId: AccountId,
    ownerSelectable: string[],
    input: ChannelListsInput = {},
  ): Promise<GeoPermissionsView> {
    await this.mustExist(accountId);
    const ceiling = readList('ownerSelectable', ownerSelectable);
    const current = await this.read(accountId);
    const channels = this.lists(input, current.channels, ceiling, (kept) =>
      current.storedCeiling === null ? ceiling : intersect(kept, ceiling),
    );
    await this.repo.put({
      accountId,
      localSms: encodeList(channels.local_sms),
      chatapp: encodeList(channels.chatapp),
      chatappWeb: encodeList(channels.chatapp_web),
      ownerSelectable: encodeList(ceiling),
      updatedAt: this.clock.now(),
    });
    return this.changed(accountId, current);
  }

  /** The view after a change, which the trail records next to the one before (no unit spans the write). */
  private async changed(accountId: AccountId, before: Permissions): Promise<GeoPermissionsView> {
    const after = await this.view(accountId);
    const prior = this.map(before);
    await this.audit.record({
      accountId,
      type: 'geo_permissions.changed',
      changes: {
        before: { channels: prior.channels, ownerSelectable: prior.ownerSelectable },
        after: { channels: after.channels, ownerSelectable: after.ownerSelectable },
      },
    });
    return after;
  }

  /** The lists after a change: given ones checked against the ceiling, the others from `keep` (or as they are). */
  private lists(
    input: ChannelListsInput,
    current: DestinationCountries,
    ceiling: CountryAllowList,
    keep: (list: CountryAllowList) => CountryAllowList | null,
  ): DestinationCountries {
    const out = { ...current };
    for (const channel of Object.keys(current) as GeoChannel[]) {
      const given = input[channel];
      if (given === undefined) {
        out[channel] = keep(current[channel]) ?? current[channel];
        continue;
      }
      const list = readList(`channels.${channel}`, given);
      const beyond = outside(list, ceiling);
      if (beyond.length)
        throw ApiError.validation(
          `channels.${channel}: ${beyond.slice(0, 10).join(', ')} ${beyond.length === 1 ? 'is' : 'are'} not among the countries this account may choose (${showList(ceiling).join(', ') || 'none'})`,
        );
      out[channel] = list;
    }
    return out;
  }

  private async read(accountId: AccountId): Promise<Permissions> {
    const row = await this.repo.find(accountId);
    if (!row) {
      const def = this.config.fraud.defaultAllowedCountries;
      return {
        channels: { local_sms: def, chatapp: def, chatapp_web: def },
        ceiling: def,
        storedCeiling: null,
        updatedAt: null,
      };
    }
    return this.fromRow(row);
  }

  private fromRow(row: GeoPermissionsEntity): Permissions {
    return {
      channels: {
        local_sms: decodeList(row.localSms),
        chatapp: decodeList(row.chatapp),
        chatapp_web: decodeList(row.chatappWeb),
      },
      ceiling: decodeList(row.ownerSelectable),
      storedCeiling: row.ownerSelectable,
      updatedAt: row.updatedAt,
    };
  }

  private map(p: Permissions): GeoPermissionsView {
    return {
      channels: {
        local_sms: showList(p.channels.local_sms),
        chatapp: showList(p.channels.chatapp),
        chatapp_web: showList(p.channels.chatapp_web),
      },
      ownerSelectable: showList(p.ceiling),
      source: p.storedCeiling === null ? 'default' : 'account',
      updatedAt: iso(p.updatedAt),
    };
  }

  private async mustExist(accountId: AccountId): Promise<void> {
    if (!(await this.accounts.exists(accountId))) throw ApiError.notFound('Account');
  }
}
