import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, IsNull, LessThan, Repository } from 'typeorm';
import type { KeyRole, Permission } from './permissions';
import { AccountEntity } from './entities/account.entity';
import { ApiKeyEntity } from './entities/api-key.entity';
import type { AccountId } from '../common/account-id';
import { numOrNull, str, type Row } from '../database/sql';

/** What never changes about a key once issued (so a replica may keep it in memory). */
export interface KeyIdentity {
  id: string;
  accountId: AccountId;
  keyHash: string;
  role: KeyRole;
  permissions: Permission[];
}

/** The per-request read: the key's account row, only while the key is not revoked. */
export interface KeyCallerRow {
  lastUsedAt: number | null;
  account: AccountEntity;
}

// One statement per authenticated request: the key by primary key, only while it is not revoked,
// joined to its account row (kept for API_KEY_CACHE_MS at most: KeyCallerCache).
// Raw SQL, because the query builder costs more than the query on this hot path (bench:api).
const CALLER_BY_KEY_ID =
  'SELECT k.last_used_at AS key_last_used_at, a.id, a.name, a.phone_verified, a.subscription_active, a.wallet_balance, ' +
  'a.currency, a.plan_name, a.message_quota, a.messages_used, a.free_messages, a.retention_days, a.created_at, a.updated_at ' +
  'FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.id = ? AND k.revoked_at IS NULL';

/** The one mapping function of CALLER_BY_KEY_ID's row. */
function toKeyCaller(r: Row): KeyCallerRow {
  const account = Object.assign(new AccountEntity(), {
    id: String(r.id),
    name: String(r.name),
    phoneVerified: !!Number(r.phone_verified),
    subscriptionActive: !!Number(r.subscription_active),
    walletBalance: Number(r.wallet_balance),
    currency: String(r.currency),
    planName: str(r.plan_name),
    messageQuota: Number(r.message_quota),
    messagesUsed: Number(r.messages_used),
    freeMessages: Number(r.free_messages),
    retentionDays: numOrNull(r.retention_days),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  });
  const lastUsedAt = numOrNull(r.key_last_used_at);
  return { lastUsedAt, account };
}

/**
 * SQL of the api_keys table. Every method takes the owning account id but the per-request lookups
 * (`Any`), which find the account from the key itself; insert takes the row, which carries it.
 */
@Injectable()
export class ApiKeysRepository {
  constructor(@InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>) {}

  /** An active key of any account by the SHA-256 of its plain value (unique index): authentication. */
  async findAnyByHash(keyHash: string): Promise<KeyIdentity | null> {
    const row = await this.keys.findOne({
      select: { id: true, accountId: true, keyHash: true, role: true, permissions: true },
      where: { keyHash, revokedAt: IsNull() },
    });
    return row
      ? { id: row.id, accountId: row.accountId, keyHash: row.keyHash, role: row.role, permissions: row.permissions }
      : null;
  }

  /** An active key of any account with its account row: authentication, once the key is known. */
  async findAnyCaller(keyId: string): Promise<KeyCallerRow | null> {
    const rows: Row[] = await this.keys.query(CALLER_BY_KEY_ID, [keyId]);
    return rows[0] ? toKeyCaller(rows[0]) : null;
  }

  /** Records a use unless one at or after `notBefore` is already recorded (another replica's). */
  async touchLastUsed(accountId: AccountId, keyId: string, now: number, notBefore: number): Promise<void> {
    await this.keys
      .createQueryBuilder()
      .update()
      .set({ lastUsedAt: now })
      .where('id = :keyId AND account_id = :accountId AND (last_used_at IS NULL OR last_used_at < :notBefore)', {
        keyId,
        accountId,
        notBefore,
      })
      .execute();
  }

  async insert(key: ApiKeyEntity, em?: EntityManager): Promise<void> {
    await (em ? em.getRepository(ApiKeyEntity) : this.keys).insert(key);
  }

  /**
   * Takes the account row's write lock until the transaction ends (a no-op UPDATE: the database locks the
   * row, or runs units of work one at a time), so concurrent creations count keys one at a time.
   */
  async lockAccount(em: EntityManager, accountId: AccountId): Promise<void> {
    await em
      .createQueryBuilder()
      .update(AccountEntity)
      .set({ updatedAt: () => 'updated_at' })
      .where('id = :accountId', { accountId })
      .execute();
  }

  async countActive(em: EntityManager, accountId: AccountId): Promise<number> {
    return em.getRepository(ApiKeyEntity).countBy({ accountId, revokedAt: IsNull() });
  }

  /** Active keys of the accounts (live and test), newest first (ids sort by creation time), after `afterId`. */
  async listActive(accountIds: string[], afterId: string | undefined, limit: number): Promise<ApiKeyEntity[]> {
    return this.keys.find({
      where: { accountId: In(accountIds), revokedAt: IsNull(), ...(afterId ? { id: LessThan(afterId) } : {}) },
      order: { id: 'DESC' },
      take: limit,
    });
  }

  /**
   * Sets revoked_at on an active key of one of the accounts (live and test); answers the key's
   * account, null when none of them has an active key with this id.
   */
  async revoke(accountIds: AccountId[], id: string, now: number, em?: EntityManager): Promise<AccountId | null> {
    const repo = em ? em.getRepository(ApiKeyEntity) : this.keys;
    for (const accountId of accountIds) {
      const result = await repo.update({ id, accountId, revokedAt: IsNull() }, { revokedAt: now });
      if ((result.affected ?? 0) > 0) return accountId;
    }
    return null;
  }
}
