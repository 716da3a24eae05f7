import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { AppConfig } from '../config/app-config';
import type { KeyCallerRow } from './api-keys.repository';

const MAP_MAX = 10_000;

interface Entry {
  row: KeyCallerRow;
  until: number;
  /** The account's version when the row was read: a change since then makes the entry stale. */
  version: number;
}

/**
 * A short memory of the per-request key lookup (key still active + its account row), by key id, for
 * API_KEY_CACHE_MS. Whatever changes an account's keys or row on this replica (revocation, operator
 * changes, the ledger) calls forgetAccount after its commit, so this replica sees the change from its
 * next request; other replicas within API_KEY_CACHE_MS. A lookup that was in flight while the account
 * changed is not kept: it remembers the version it started from (`begin`), and `keep` drops it.
 */
@Injectable()
export class KeyCallerCache {
  private readonly entries = new Map<string, Entry>();
  private readonly versions = new Map<string, number>();
  private readonly ttlMs: number;

  constructor(
    config: AppConfig,
    private readonly clock: Clock,
  ) {
    this.ttlMs = config.security.apiKeyCacheMs;
  }

  /** The remembered lookup of a key, unless it is older than the TTL or its account changed since. */
  get(keyId: string): KeyCallerRow | null {
    const e = this.entries.get(keyId);
    if (!e) return null;
    if (e.until <= this.clock.now() || e.version !== this.versionOf(e.row.account.id)) {
      this.entries.delete(keyId);
      return null;
    }
    return e.row;
  }

  /** The account's version before a lookup starts; pass it to `keep`. */
  begin(accountId: string): number {
    return this.versionOf(accountId);
  }

  /** Remembers a lookup unless the account changed since `begin` (or caching is off). */
  keep(keyId: string, row: KeyCallerRow, version: number): void {
    if (this.ttlMs <= 0 || version !== this.versionOf(row.account.id)) return;
    if (this.entries.size >= MAP_MAX) this.entries.clear();
    this.entries.set(keyId, { row, until: this.clock.now() + this.ttlMs, version });
  }

  /** The account's keys or row changed (call after the commit): its remembered lookups are stale. */
  forgetAccount(accountId: string): void {
    if (this.versions.size >= MAP_MAX) {
      // Every remembered entry refers to a version in this map: drop both together.
      this.versions.clear();
      this.entries.clear();
    }
    this.versions.set(accountId, this.versionOf(accountId) + 1);
  }

  private versionOf(accountId: string): number {
    return this.versions.get(accountId) ?? 0;
  }
}
