import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { Coalescer } from '../common/coalescer';
import { UnitOfWork } from '../database/unit-of-work';
import { isUniqueViolation } from '../database/db-errors';
import { GeoPermissionsEntity } from './entities/geo-permissions.entity';
import type { AccountId } from '../common/account-id';

export type GeoChannelColumns = Pick<GeoPermissionsEntity, 'localSms' | 'chatapp' | 'chatappWeb'>;

/** Geo permission rows; every method takes the owning account id. */
@Injectable()
export class GeoPermissionsRepository {
  /** Reads made at once (the validation contexts of hundreds of jobs' windows), one read for many. */
  private readonly reads: Coalescer<AccountId, GeoPermissionsEntity | null>;

  constructor(
    @InjectRepository(GeoPermissionsEntity) private readonly rows: Repository<GeoPermissionsEntity>,
    uow: UnitOfWork,
  ) {
    this.reads = new Coalescer({ batch: (ids) => this.findMany(ids), maxWeight: 500, ...uow.coalescing });
  }

  find(accountId: AccountId): Promise<GeoPermissionsEntity | null> {
    return this.reads.submit(accountId);
  }

  /** Several accounts' rows by primary key in one read, in the order asked (null: no row). */
  private async findMany(ids: AccountId[]): Promise<(GeoPermissionsEntity | null)[]> {
    const found = await this.rows.findBy({ accountId: In([...new Set(ids)]) });
    const byAccount = new Map(found.map((r) => [r.accountId, r]));
    return ids.map((id) => byAccount.get(id) ?? null);
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
