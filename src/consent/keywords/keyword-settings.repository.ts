import { Injectable } from '@nestjs/common';
import { query, Row, sql } from '../../database/sql';
import { UnitOfWork } from '../../database/unit-of-work';
import type { AccountId } from '../../common/account-id';

/** The one mapping of a keyword_settings row: its JSON document. */
const toSettings = (r: Row): string => String(r.settings);

/** keyword_settings: one JSON document per account (owned by consent). */
@Injectable()
export class KeywordSettingsRepository {
  constructor(private readonly uow: UnitOfWork) {}

  async find(accountId: AccountId): Promise<string | null> {
    const rows = await this.uow.read(
      query(toSettings, sql('SELECT settings FROM keyword_settings WHERE account_id = ?', accountId)),
    );
    return rows.length ? rows[0] : null;
  }

  async save(accountId: AccountId, settings: string, now: number): Promise<void> {
    const onConflict =
      this.uow.capabilities.upsert === 'on-conflict'
        ? 'ON CONFLICT (account_id) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at'
        : 'ON DUPLICATE KEY UPDATE settings = VALUES(settings), updated_at = VALUES(updated_at)';
    await this.uow.run(
      sql(
        `INSERT INTO keyword_settings (account_id, settings, updated_at) VALUES (?, ?, ?) ${onConflict}`,
        accountId,
        settings,
        now,
      ),
    );
  }
}
