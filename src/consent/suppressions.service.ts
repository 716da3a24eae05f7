import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { RecipientHasher } from '../common/recipient-hasher';
import { UnitOfWork } from '../database/unit-of-work';
import { SuppressionFilter, SuppressionsRepository } from './suppressions.repository';
import type { OptIn, OptOut, SuppressionChannel, SuppressionRecord } from './suppression-types';
import type { AccountId } from '../common/account-id';

/** Entries per statement of a large addition (as one API call holds at most). */
const CHUNK = 1000;

/** Listing filters as the API takes them (the recipient normalised). */
export type SuppressionQuery = Omit<SuppressionFilter, 'recipientHash'> & { recipient?: string };

/**
 * The account's suppression list: the one writer of its entries (API, console, CSV import, inbound
 * keywords). Recipients arrive normalised (E.164 or lower-case email); entries are keyed by their
 * one-way hash, so an erased recipient's entry still holds.
 */
@Injectable()
export class SuppressionsService {
  constructor(
    private readonly repo: SuppressionsRepository,
    private readonly hasher: RecipientHasher,
    private readonly clock: Clock,
    private readonly uow: UnitOfWork,
  ) {}

  /** Opts a recipient out (idempotent: an existing entry stays, its scope becomes the given one). */
  async optOut(req: OptOut): Promise<SuppressionRecord> {
    await this.optOutMany(req.accountId, [req]);
    const entry = await this.repo.find(req.accountId, this.hasher.hash(req.accountId, req.recipient), req.channel);
    if (!entry) throw new Error('suppression entry vanished after its upsert');
    return entry;
  }

  /** Many entries of one account in one statement (API batches of up to 1,000, CSV import chunks). */
  async optOutMany(accountId: AccountId, reqs: readonly Omit<OptOut, 'accountId'>[]): Promise<void> {
    const now = this.clock.now();
    // One statement may not name the same key twice (a dialect may apply both): keep the last.
    const byKey = new Map<string, SuppressionRecord>();
    for (const r of reqs) {
      const recipientHash = this.hasher.hash(accountId, r.recipient);
      byKey.set(`${recipientHash}|${r.channel}`, {
        id: newId('sup'),
        accountId,
        recipientHash,
        recipient: r.recipient,
        channel: r.channel,
        scope: r.scope ?? 'marketing',
        reason: r.reason,
        source: r.source ?? null,
        createdAt: now,
      });
    }
    await this.repo.upsert(accountId, [...byKey.values()]);
  }

  /**
   * Many entries (a CSV import, each (recipient, channel) once) in one unit of work, all or none, in
   * statements of CHUNK: how many were new and how many existed (their scope set to the given one).
   */
  async optOutAll(
    accountId: AccountId,
    reqs: readonly Omit<OptOut, 'accountId'>[],
  ): Promise<{ added: number; existing: number }> {
    return this.uow.transaction(async () => {
      let existing = 0;
      for (let i = 0; i < reqs.length; i += CHUNK) {
        const chunk = reqs.slice(i, i + CHUNK);
        existing += (await this.entries(accountId, chunk)).length;
        await this.optOutMany(accountId, chunk);
      }
      return { added: reqs.length - existing, existing };
    });
  }

  /** Lifts an opt-out (of one channel key, or every entry of the recipient): how many entries went. */
  async optIn(req: OptIn): Promise<number> {
    return this.repo.remove(req.accountId, this.hasher.hash(req.accountId, req.recipient), req.channel);
  }

  /** The stored entries of these (recipient, channel) pairs, in their order, once each (one read). */
  async entries(
    accountId: AccountId,
    keys: readonly { recipient: string; channel: SuppressionChannel }[],
  ): Promise<SuppressionRecord[]> {
    const hashed = keys.map((k) => ({ hash: this.hasher.hash(accountId, k.recipient), channel: k.channel }));
    const stored = new Map(
      (await this.repo.ofHashes(accountId, [...new Set(hashed.map((k) => k.hash))])).map((e) => [
        `${e.recipientHash}|${e.channel}`,
        e,
      ]),
    );
    const out = new Map<string, SuppressionRecord>();
    for (const k of hashed) {
      const e = stored.get(`${k.hash}|${k.channel}`);
      if (e) out.set(`${k.hash}|${k.channel}`, e);
    }
    return [...out.values()];
  }

  async list(accountId: AccountId, q: SuppressionQuery): Promise<SuppressionRecord[]> {
    const { recipient, ...rest } = q;
    return this.repo.list(accountId, {
      ...rest,
      ...(recipient !== undefined ? { recipientHash: this.hasher.hash(accountId, recipient) } : {}),
    });
  }
}
