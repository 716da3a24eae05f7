import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { hashApiKey, safeEqualHex } from '../auth/api-key-hash';
import type { AuthContext } from '../auth/auth-context';
import { ApiKeysRepository } from './api-keys.repository';

/** lastUsedAt is a hint for owners ("is this key still in use?"), not an audit log: minute precision. */
export const LAST_USED_RESOLUTION_MS = 60_000;
const PENDING_TOUCH_MAX = 10_000;

/**
 * Resolves an X-API-Key to its caller on every request with one query (key + account row), so a
 * revoked key is refused by every replica from the next request on.
 */
@Injectable()
export class ApiKeyAuthService {
  private readonly logger = new Logger(ApiKeyAuthService.name);
  /** keyId -> earliest time this replica writes lastUsedAt again (stops a burst of writes per key). */
  private readonly nextTouch = new Map<string, number>();

  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly clock: Clock,
  ) {}

  async authenticate(key: string): Promise<AuthContext | null> {
    if (key.length > 200) return null;
    const hash = hashApiKey(key);
    const found = await this.keys.findCaller(hash);
    // The index lookup is by hash; compare once more in constant time before trusting the row.
    if (!found || !safeEqualHex(found.keyHash, hash)) return null;
    this.recordUse(found.keyId, found.lastUsedAt);
    return { accountId: found.account.id, keyId: found.keyId, role: found.role, permissions: found.permissions, account: found.account };
  }

  /**
   * Fire-and-forget: the request does not wait for this write, and a failed write is only logged.
   * The row's own value (read with the key) keeps replicas from writing more than about once a minute
   * between them; the map stops this replica's concurrent requests from all writing at once.
   */
  private recordUse(keyId: string, lastUsedAt: number | null): void {
    const now = this.clock.now();
    if (lastUsedAt !== null && now - lastUsedAt < LAST_USED_RESOLUTION_MS) return;
    if ((this.nextTouch.get(keyId) ?? 0) > now) return;
    if (this.nextTouch.size >= PENDING_TOUCH_MAX) this.nextTouch.clear();
    this.nextTouch.set(keyId, now + LAST_USED_RESOLUTION_MS);
    this.keys.touchLastUsed(keyId, now, now - LAST_USED_RESOLUTION_MS + 1).catch((err: unknown) => {
      // Allow the next request to try again rather than waiting a minute.
      this.nextTouch.delete(keyId);
      this.logger.warn(`Could not record the use of API key ${keyId}: ${err instanceof Error ? err.message : String(err)}`);
    });
  }
}
