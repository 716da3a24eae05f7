import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ComplianceSettingsEntity } from './compliance-settings.entity';
import type { AccountId } from '../../common/account-id';

/** Compliance settings rows; every method takes the owning account id. */
@Injectable()
export class ComplianceSettingsRepository {
  constructor(
    @InjectRepository(ComplianceSettingsEntity) private readonly rows: Repository<ComplianceSettingsEntity>,
  ) {}

  find(accountId: AccountId): Promise<ComplianceSettingsEntity | null> {
    return this.rows.findOneBy({ accountId });
  }

  /** The whole row, last writer wins (the owner's PATCH reads, merges and writes it). */
  async put(row: ComplianceSettingsEntity): Promise<void> {
    await this.rows.upsert(row, ['accountId']);
  }
}
