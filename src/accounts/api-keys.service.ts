import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { generateApiKey, hashApiKey, safeEqualHex } from '../auth/api-key-hash';
import type { AuthContext } from '../auth/auth-context';
import { KeyRole, Permission, PERMISSIONS } from '../auth/permissions';
import { AccountEntity } from './entities/account.entity';
import { ApiKeyEntity } from './entities/api-key.entity';

export interface IssuedApiKey {
  id: string;
  key: string;
  role: KeyRole;
  permissions: Permission[];
}

interface CachedKey {
  id: string;
  accountId: string;
  keyHash: string;
  role: KeyRole;
  permissions: Permission[];
  expiresAt: number;
}

// Keys are immutable once issued, so their lookup is cached briefly per replica; the account row
// (balances, flags) is still read on every request.
const KEY_CACHE_MS = 10_000;
const KEY_CACHE_MAX = 10_000;
const ACCOUNT_BY_ID =
  'SELECT id, name, phone_verified, subscription_active, wallet_balance, currency, plan_name, message_quota, ' +
  'messages_used, free_messages, created_at, updated_at FROM accounts WHERE id = ?';

@Injectable()
export class ApiKeysService {
  private readonly cache = new Map<string, CachedKey>();

  constructor(
    @InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>,
    @InjectRepository(AccountEntity) private readonly accounts: Repository<AccountEntity>,
    private readonly clock: Clock,
  ) {}

  /** Issues a key; the plain key is returned once and only its SHA-256 is stored. */
  async issue(accountId: string, role: KeyRole, permissions: Permission[], repo = this.keys): Promise<IssuedApiKey> {
    const key = generateApiKey();
    const perms = role === 'owner' ? [...PERMISSIONS] : [...new Set(permissions)];
    const entity = repo.create({
      id: newId('key'),
      accountId,
      keyHash: hashApiKey(key),
      keyPrefix: key.slice(0, 12),
      role,
      permissions: perms,
      createdAt: this.clock.now(),
      revokedAt: null,
    });
    await repo.insert(entity);
    return { id: entity.id, key, role, permissions: perms };
  }

  async authenticate(key: string): Promise<AuthContext | null> {
    if (key.length > 200) return null;
    const hash = hashApiKey(key);
    const found = await this.lookup(hash);
    // The index lookup is by hash; compare once more in constant time before trusting the row.
    if (!found || !safeEqualHex(found.keyHash, hash)) return null;
    const account = await this.loadAccount(found.accountId);
    if (!account) return null;
    return { accountId: account.id, keyId: found.id, role: found.role, permissions: found.permissions, account };
  }

  /**
   * The account row on every authenticated request: a raw single-row SELECT, because the query
   * builder costs more than the query itself on this hot path (bench:api).
   */
  private async loadAccount(id: string): Promise<AccountEntity | null> {
    const rows: Record<string, unknown>[] = await this.accounts.query(ACCOUNT_BY_ID, [id]);
    const r = rows[0];
    if (!r) return null;
    return Object.assign(new AccountEntity(), {
      id: r.id as string,
      name: r.name as string,
      phoneVerified: !!Number(r.phone_verified),
      subscriptionActive: !!Number(r.subscription_active),
      walletBalance: Number(r.wallet_balance),
      currency: r.currency as string,
      planName: (r.plan_name as string | null) ?? null,
      messageQuota: Number(r.message_quota),
      messagesUsed: Number(r.messages_used),
      freeMessages: Number(r.free_messages),
      createdAt: Number(r.created_at),
      updatedAt: Number(r.updated_at),
    });
  }

  private async lookup(hash: string): Promise<CachedKey | null> {
    const now = this.clock.now();
    const hit = this.cache.get(hash);
    if (hit && hit.expiresAt > now) return hit;
    const row = await this.keys.findOneBy({ keyHash: hash, revokedAt: IsNull() });
    if (!row) {
      this.cache.delete(hash);
      return null;
    }
    if (this.cache.size >= KEY_CACHE_MAX) this.cache.clear();
    const entry: CachedKey = { ...row, expiresAt: now + KEY_CACHE_MS };
    this.cache.set(hash, entry);
    return entry;
  }
}
