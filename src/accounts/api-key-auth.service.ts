import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { safeEqualHex } from '../common/constant-time';
import { hashApiKey } from './api-key-hash';
import { ApiKeysRepository, KeyCallerRow, KeyIdentity } from './api-keys.repository';
import { KeyCallerCache } from './key-caller-cache';
import type { AccountEntity } from './entities/account.entity';
import type { KeyRole, Permission } from './permissions';
import { KeyMode, modeOfAccount } from './account-mode';
import type { AccountId } from '../common/account-id';

/** lastUsedAt is a hint for owners ("is this key still in use?"), not an audit log: minute precision. */
export const LAST_USED_RESOLUTION_MS = 60_000;
const MAP_MAX = 10_000;

/** Who is calling, as resolved from an API key (the auth module's AuthContext). */
export interface ApiKeyCaller {
  /** The account whose data the key reads and writes: for a test key, the account's test twin. */
  accountId: AccountId;
  /** Test keys read and write only test data (account-mode.ts). */
  mode: KeyMode;
  keyId: string;
  role: KeyRole;
  permissions: Permission[];
  /** The account row as read with the key, in this request. */
  account: AccountEntity;
}

/**
 * Resolves an X-API-Key to its caller. What a key is (id, account, role, permissions) never changes,
 * so a replica keeps it in memory by hash. Whether it is still active is read in the same query as the
 * account row, kept for at most API_KEY_CACHE_MS (KeyCallerCache): a key revoked on this replica is
 * refused from the next request, on the others within that bound.
 */
@Injectable()
export class ApiKeyAuthService {
  private readonly logger = new Logger(ApiKeyAuthService.name);
  private readonly identities = new Map<string, KeyIdentity>();
  /** keyId -> earliest time this replica writes lastUsedAt again (stops a burst of writes per key). */
  private readonly nextTouch = new Map<string, number>();

  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly clock: Clock,
    private readonly callers: KeyCallerCache,
  ) {}

  async authenticate(key: string): Promise<ApiKeyCaller | null> {
    if (key.length > 200) return null;
    const hash = hashApiKey(key);
    const identity = this.identities.get(hash) ?? (await this.keys.findAnyByHash(hash));
    // The lookup is by hash; compare once more in constant time before trusting the row.
    if (!identity || !safeEqualHex(identity.keyHash, hash)) return null;
    const caller = this.callers.get(identity.id) ?? (await this.lookUp(identity));
    if (!caller) {
      this.identities.delete(hash);
      return null;
    }
    if (!this.identities.has(hash)) {
      if (this.identities.size >= MAP_MAX) this.identities.clear();
      this.identities.set(hash, identity);
    }
    this.recordUse(caller.account.id, identity.id, caller.lastUsedAt);
    return {
      accountId: caller.account.id,
      mode: modeOfAccount(caller.account.id),
      keyId: identity.id,
      role: identity.role,
      permissions: identity.permissions,
      account: caller.account,
    };
  }

  private async lookUp(identity: KeyIdentity): Promise<KeyCallerRow | null> {
    const version = this.callers.begin(identity.accountId);
    const caller = await this.keys.findAnyCaller(identity.id);
    if (caller) this.callers.keep(identity.id, caller, version);
    return caller;
  }

  /**
   * Fire-and-forget: the request does not wait for this write, and a failed write is only logged.
   * The row's own value (read with the key) keeps replicas from writing more than about once a minute
   * between them; the map stops this replica's concurrent requests from all writing at once.
   */
  private recordUse(accountId: AccountId, keyId: string, lastUsedAt: number | null): void {
    const now = this.clock.now();
    if (lastUsedAt !== null && now - lastUsedAt < LAST_USED_RESOLUTION_MS) return;
    if ((this.nextTouch.get(keyId) ?? 0) > now) return;
    if (this.nextTouch.size >= MAP_MAX) this.nextTouch.clear();
    this.nextTouch.set(keyId, now + LAST_USED_RESOLUTION_MS);
    // On failure the next try is a minute later, so a struggling database gets no write per request.
    this.keys.touchLastUsed(accountId, keyId, now, now - LAST_USED_RESOLUTION_MS + 1).catch((err: unknown) => {
      this.logger.warn(
        `Could not record the use of API key ${keyId}: ${err instanceof Error ? err.message : String(err)}`,
      );
    });
  }
}
