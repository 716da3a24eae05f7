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

/** Most active keys an account may hold (owner and member); each one is a credential to watch. */
export const MAX_ACTIVE_KEYS = 100;
export const DEFAULT_KEY_NAMES: Record<KeyRole, string> = { owner: 'Owner key', member: 'Member key' };

/** What the operator API answers when it issues a key. */
export interface IssuedApiKey {
  id: string;
  key: string;
  role: KeyRole;
  permissions: Permission[];
}

/** A key as owners see it in GET /api/v2/api-keys: never the key itself or its hash. */
export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  role: KeyRole;
  permissions: Permission[];
  createdAt: string;
  lastUsedAt: string | null;
}

export interface IssueSpec {
  role: KeyRole;
  permissions: Permission[];
  name?: string;
}

@Injectable()
export class ApiKeysService {
  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly uow: UnitOfWork,
    private readonly cursors: CursorCodec,
    private readonly clock: Clock,
    @Inject(AUDIT_TRAIL) private readonly audit: AuditTrail,
  ) {}

  /**
   * Issues a key (operator API, account creation); the plain key is returned once, only its SHA-256 is
   * stored. Audited unless it is part of creating the account (`em`: the account's own transaction).
   */
  async issue(accountId: string, spec: IssueSpec, em?: EntityManager): Promise<IssuedApiKey> {
    if (em) {
      const { entity, key } = await this.insert(accountId, spec, em);
      return { id: entity.id, key, role: entity.role, permissions: entity.permissions };
    }
    return this.uow.transaction(async ({ manager }) => {
      const { entity, key } = await this.insert(accountId, spec, manager);
      await this.audited('api_key.created', entity);
      return { id: entity.id, key, role: entity.role, permissions: entity.permissions };
    });
  }

  /**
   * An owner creates a member key: at most MAX_ACTIVE_KEYS active keys per account, counted under the
   * account row's lock so two concurrent creations cannot both take the last place.
   */
  async createMemberKey(
    auth: ApiKeyCaller,
    name: string,
    permissions: Permission[],
  ): Promise<ApiKeyView & { key: string }> {
    return this.uow.transaction(async ({ manager: em }) => {
      await this.keys.lockAccount(em, auth.accountId);
      if ((await this.keys.countActive(em, auth.accountId)) >= MAX_ACTIVE_KEYS) {
        throw new ApiError(
          'API_KEY_LIMIT_REACHED',
          `The account already has ${MAX_ACTIVE_KEYS} active API keys; revoke one before creating another`,
        );
      }
      const { entity, key } = await this.insert(auth.accountId, { role: 'member', permissions, name }, em);
      await this.audited('api_key.created', entity);
      return { ...this.view(entity), key };
    });
  }

  async list(accountId: string, q: { cursor?: string; limit?: number }): Promise<Page<ApiKeyView>> {
    const scope = `api-keys:${accountId}`;
    const after = this.cursors.decode<{ id: string }>(scope, q.cursor);
    if (after !== null && typeof after.id !== 'string') throw ApiError.validation('cursor is invalid');
    const limit = q.limit ?? 50;
    const rows = await this.keys.listActive(accountId, after?.id, limit + 1);
    const hasMore = rows.length > limit;
    const items = rows.slice(0, limit).map((r) => this.view(r));
    return {
      items,
      hasMore,
      nextCursor: hasMore ? this.cursors.encode(scope, { id: items[items.length - 1].id }) : null,
    };
  }

  /** Sets revoked_at (the row stays for the record). The calling key cannot revoke itself. */
  async revoke(auth: ApiKeyCaller, id: string): Promise<{ id: string; revoked: true; revokedAt: string }> {
    if (id === auth.keyId)
      throw new ApiError(
        'INVALID_STATE',
        'An API key cannot revoke itself; use another owner key, or ask the operator',
      );
    const now = this.clock.now();
    await this.uow.transaction(async ({ manager }) => {
      if (!(await this.keys.revoke(auth.accountId, id, now, manager)))
        throw new ApiError('API_KEY_NOT_FOUND', 'API key not found');
      await this.audit.record({
        accountId: auth.accountId,
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
      accountId: e.accountId,
      type,
      target: e.id,
      changes: { name: e.name, role: e.role, permissions: [...e.permissions], prefix: e.keyPrefix },
    });
  }

  private async insert(
    accountId: string,
    spec: IssueSpec,
    em?: EntityManager,
  ): Promise<{ entity: ApiKeyEntity; key: string }> {
    const key = generateApiKey();
    const entity = Object.assign(new ApiKeyEntity(), {
      id: newId('key'),
      accountId,
      name: spec.name ?? DEFAULT_KEY_NAMES[spec.role],
      keyHash: hashApiKey(key),
      keyPrefix: key.slice(0, 12),
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
      permissions: k.permissions,
      createdAt: new Date(k.createdAt).toISOString(),
      lastUsedAt: iso(k.lastUsedAt),
    };
  }
}
