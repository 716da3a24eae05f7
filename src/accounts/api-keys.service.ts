import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AUDIT_TRAIL, AuditTrail } from '../common/audit/audit-trail';
import { Clock } from '../common/clock';
import { CursorCodec, Page } from '../common/cursor';
import { ApiError } from '../common/errors';
import { newId } from '../common/ids';
import { iso } from '../database/columns';
import { generateApiKey, hashApiKey } from './api-key-hash';
import type { ApiKeyCaller } from './api-key-auth.service';
import { KeyRole, Permission, PERMISSIONS } from './permissions';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeyEntity } from './entities/api-key.entity';
import { UnitOfWork } from '../database/unit-of-work';
import { AppConfig } from '../config/app-config';
import { isLiveAccount, KeyMode, liveAccountIdOf, modeOfAccount, testAccountIdOf } from './account-mode';
import { TestAccountsRepository } from './test-accounts.repository';
import { KeyCallerCache } from './key-caller-cache';
import type { AccountId } from '../common/account-id';

/** Most active keys an account may hold (owner and member); each one is a credential to watch. */
export const MAX_ACTIVE_KEYS = 100;
export const DEFAULT_KEY_NAMES: Record<KeyRole, string> = { owner: 'Owner key', member: 'Member key' };

/** What the operator API answers when it issues a key. */
export interface IssuedApiKey {
  id: string;
  key: string;
  role: KeyRole;
  mode: KeyMode;
  permissions: Permission[];
}

/** A key as owners see it in GET /api/v2/api-keys: never the key itself or its hash. */
export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  role: KeyRole;
  /** `test`: the key reads and writes the account's test data only (account-mode.ts). */
  mode: KeyMode;
  permissions: Permission[];
  createdAt: string;
  lastUsedAt: string | null;
}

export interface IssueSpec {
  role: KeyRole;
  permissions: Permission[];
  name?: string;
  /** Default live. A test key is issued on the account's test twin, created on first use. */
  mode?: KeyMode;
}

/** Who asks the keys routes: the caller's (live or test) account. */
type KeysCaller = Pick<ApiKeyCaller, 'accountId' | 'keyId' | 'role'>;

@Injectable()
export class ApiKeysService {
  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly uow: UnitOfWork,
    private readonly cursors: CursorCodec,
    private readonly clock: Clock,
    @Inject(AUDIT_TRAIL) private readonly audit: AuditTrail,
    private readonly testAccounts: TestAccountsRepository,
    private readonly config: AppConfig,
    private readonly callers: KeyCallerCache,
  ) {}

  /**
   * Issues a key (operator API, account creation); the plain key is returned once, only its SHA-256 is
   * stored. Audited unless it is part of creating the account (`em`: the account's own transaction).
   */
  async issue(accountId: AccountId, spec: IssueSpec, em?: EntityManager): Promise<IssuedApiKey> {
    const issued = (entity: ApiKeyEntity, key: string): IssuedApiKey => ({
      id: entity.id,
      key,
      role: entity.role,
      mode: modeOfAccount(entity.accountId),
      permissions: entity.permissions,
    });
    if (em) {
      const { entity, key } = await this.insert(accountId, spec, em);
      return issued(entity, key);
    }
    return this.uow.transaction(async ({ manager }) => {
      const target = spec.mode === 'test' ? await this.testAccountOf(manager, accountId) : accountId;
      const { entity, key } = await this.insert(target, spec, manager);
      await this.audited('api_key.created', entity);
      return issued(entity, key);
    });
  }

  /** The twin of a live account, created (with TEST_MODE_BALANCE) under the live row's lock. */
  private async testAccountOf(em: EntityManager, liveAccountId: AccountId): Promise<AccountId> {
    await this.keys.lockAccount(em, liveAccountId);
    return this.testAccounts.ensure(em, liveAccountId, this.config.testMode.balance, this.clock.now());
  }

  /** The accounts whose keys a caller manages: a live owner both modes, a test key its test mode only. */
  private managedAccounts(auth: KeysCaller): AccountId[] {
    return isLiveAccount(auth.accountId) ? [auth.accountId, testAccountIdOf(auth.accountId)] : [auth.accountId];
  }

  /**
   * An owner creates a key: a member key with the listed permissions, or (test mode only) a test owner
   * key. At most MAX_ACTIVE_KEYS active keys per account and mode, counted under the live account row's
   * lock so two concurrent creations cannot both take the last place. A test key never creates a live one.
   */
  async createKey(
    auth: KeysCaller,
    spec: { name: string; permissions?: Permission[]; mode?: KeyMode; role?: KeyRole },
  ): Promise<ApiKeyView & { key: string }> {
    const mode = spec.mode ?? modeOfAccount(auth.accountId);
    const role = spec.role ?? 'member';
    if (mode === 'live' && !isLiveAccount(auth.accountId))
      throw new ApiError('FORBIDDEN', 'A test key cannot create live keys; use a live owner key');
    if (role === 'owner' && mode === 'live')
      throw ApiError.validation('role owner is only for test keys (mode test); live owner keys come from the operator');
    if (role === 'member' && !spec.permissions?.length)
      throw ApiError.validation('permissions must list at least one permission');
    return this.uow.transaction(async ({ manager: em }) => {
      let target = auth.accountId;
      if (mode === 'test') target = await this.testAccountOf(em, auth.accountId);
      else await this.keys.lockAccount(em, target);
      if ((await this.keys.countActive(em, target)) >= MAX_ACTIVE_KEYS) {
        throw new ApiError(
          'API_KEY_LIMIT_REACHED',
          `The account already has ${MAX_ACTIVE_KEYS} active ${mode} API keys; revoke one before creating another`,
        );
      }
      const { entity, key } = await this.insert(
        target,
        { role, permissions: spec.permissions ?? [], name: spec.name, mode },
        em,
      );
      await this.audited('api_key.created', entity);
      return { ...this.view(entity), key };
    });
  }

  async list(auth: KeysCaller, q: { cursor?: string; limit?: number }): Promise<Page<ApiKeyView>> {
    const scope = `api-keys:${auth.accountId}`;
    const after = this.cursors.decode<{ id: string }>(scope, q.cursor);
    if (after !== null && typeof after.id !== 'string') throw ApiError.validation('cursor is invalid');
    const limit = q.limit ?? 50;
    const rows = await this.keys.listActive(this.managedAccounts(auth), after?.id, limit + 1);
    const hasMore = rows.length > limit;
    const items = rows.slice(0, limit).map((r) => this.view(r));
    return {
      items,
      hasMore,
      nextCursor: hasMore ? this.cursors.encode(scope, { id: items[items.length - 1].id }) : null,
    };
  }

  /** Sets revoked_at (the row stays for the record). The calling key cannot revoke itself. */
  async revoke(auth: KeysCaller, id: string): Promise<{ id: string; revoked: true; revokedAt: string }> {
    if (id === auth.keyId)
      throw new ApiError(
        'INVALID_STATE',
        'An API key cannot revoke itself; use another owner key, or ask the operator',
      );
    const now = this.clock.now();
    await this.uow.transaction(async ({ manager }) => {
      const owner = await this.keys.revoke(this.managedAccounts(auth), id, now, manager);
      if (owner === null) throw new ApiError('API_KEY_NOT_FOUND', 'API key not found');
      // This replica refuses the key from its next request (the others within API_KEY_CACHE_MS).
      this.uow.afterCommit(() => this.callers.forgetAccount(owner));
      await this.audit.record({
        accountId: liveAccountIdOf(owner),
        type: 'api_key.revoked',
        target: id,
        changes: { revoked: true },
      });
    });
    return { id, revoked: true, revokedAt: new Date(now).toISOString() };
  }

  /** The audit entry of a new key: what it may do, never the key or its hash. */
  private async audited(type: 'api_key.created', e: ApiKeyEntity): Promise<void> {
    await this.audit.record({
      // Keys are the account's credentials whatever their mode: the live trail records test keys too.
      accountId: liveAccountIdOf(e.accountId),
      type,
      target: e.id,
      changes: {
        name: e.name,
        role: e.role,
        mode: modeOfAccount(e.accountId),
        permissions: [...e.permissions],
        prefix: e.keyPrefix,
      },
    });
  }

  private async insert(
    accountId: AccountId,
    spec: IssueSpec,
    em?: EntityManager,
  ): Promise<{ entity: ApiKeyEntity; key: string }> {
    const key = generateApiKey(modeOfAccount(accountId));
    const entity = Object.assign(new ApiKeyEntity(), {
      id: newId('key'),
      accountId,
      name: spec.name ?? DEFAULT_KEY_NAMES[spec.role],
      keyHash: hashApiKey(key),
      keyPrefix: key.slice(0, isLiveAccount(accountId) ? 12 : 16),
      role: spec.role,
      permissions: spec.role === 'owner' ? [...PERMISSIONS] : [...new Set(spec.permissions)],
      createdAt: this.clock.now(),
      revokedAt: null,
      lastUsedAt: null,
    });
    await this.keys.insert(entity, em);
    return { entity, key };
  }

  private view(k: ApiKeyEntity): ApiKeyView {
    return {
      id: k.id,
      name: k.name,
      prefix: k.keyPrefix,
      role: k.role,
      mode: modeOfAccount(k.accountId),
      permissions: k.permissions,
      createdAt: new Date(k.createdAt).toISOString(),
      lastUsedAt: iso(k.lastUsedAt),
    };
  }
}
