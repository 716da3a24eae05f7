import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { isUniqueViolation } from '../database/db-errors';
import { GeoPermissionsEntity } from './entities/geo-permissions.entity';
import type { AccountId } from '../common/account-id';

export type GeoChannelColumns = Pick<GeoPermissionsEntity, 'localSms' | 'chatapp' | 'chatappWeb'>;

/** Geo permission rows; every method takes the owning account id. */
@Injectable()
export class GeoPermissionsRepository {
  constructor(@InjectRepository(GeoPermissionsEntity) private readonly rows: Repository<GeoPermissionsEntity>) {}

  find(accountId: AccountId): Promise<GeoPermissionsEntity | null> {
    return this.rows.findOneBy({ accountId });
  }

  /** The operator's write: the whole row, whatever was there. */
  async put(row: GeoPermissionsEntity): Promise<void> {
    await this.rows.upsert(row, ['accountId']);
  }

  /**
   * The owner's write, only while the ceiling it was checked against still stands (`ceiling` null: the
   * account had no row, and none was written since). False: the operator changed it meanwhile.
   */
  async setChannelsUnder(
    accountId: AccountId,
    ceiling: string | null,
    channels: GeoChannelColumns,
    defaults: string,
    now: number,
  ): Promise<boolean> {
    if (ceiling === null) {
      try {
        await this.rows.insert({ accountId, ...channels, ownerSelectable: defaults, updatedAt: now });
        return true;
      } catch (err) {
        if (isUniqueViolation(err)) return false;
        throw err;
      }
    }
    const res = await this.rows.update({ accountId, ownerSelectable: ceiling }, { ...channels, updatedAt: now });
    return res.affected === 1;
  }
}
