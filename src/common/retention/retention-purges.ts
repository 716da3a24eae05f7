import { Injectable } from '@nestjs/common';
import type { AccountId } from '../account-id';

/** A table the purger keeps bounded (the label of its metrics). */
export type PurgedTable =
  | 'messages'
  | 'message_status_history'
  | 'message_provider_refs'
  | 'sandbox_deliveries'
  | 'bulk_jobs'
  | 'bulk_rows'
  | 'inbound_sms'
  | 'web_inbound_messages';

export const PURGED_TABLES: PurgedTable[] = [
  'messages',
  'message_status_history',
  'message_provider_refs',
  'sandbox_deliveries',
  'bulk_jobs',
  'bulk_rows',
  'inbound_sms',
  'web_inbound_messages',
];

/** Rows deleted per table by one unit. */
export type Purged = Partial<Record<PurgedTable, number>>;

/** A message past its retention, with the time its read is ordered by (epoch ms): its count into usage or its last change. */
export interface ExpiredMessage {
  id: string;
  at: number;
}

/** What every part says of its tables: the oldest key of each (a time-sorted id), null when empty. */
export interface OwnedTables {
  readonly tables: readonly PurgedTable[];
  oldestKey(table: PurgedTable): Promise<string | null>;
}

/** Messages (messaging): each deleted in one unit with its history, provider ids and sandbox delivery. */
export interface MessagesPurge extends OwnedTables {
  /** Messages of any account counted into usage in [from, before), oldest count first. */
  expiredAnyAccount(from: number, before: number, limit: number): Promise<ExpiredMessage[]>;
  /** One account's messages counted before `before` and last changed in [from, before), oldest change first. */
  expiredOfAccount(accountId: AccountId, from: number, before: number, limit: number): Promise<ExpiredMessage[]>;
  /** Deletes those of `candidates` still expired (but those of `keptAccounts`) in one unit. */
  delete(candidates: string[], before: number, keptAccounts?: ReadonlySet<string>): Promise<Purged>;
}

/** Settled bulk jobs and their rows (bulk). */
export interface BulkJobsPurge extends OwnedTables {
  /** An account's settled jobs created before `beforeId` and unchanged since `before`. */
  expiredJobIds(accountId: AccountId, beforeId: string, before: number, limit: number): Promise<string[]>;
  /** Up to `batch` rows of a settled job, and the job with its last rows; nothing while a row is to send. */
  deleteJobChunk(jobId: string, batch: number): Promise<{ purged: Purged; done: boolean }>;
}

/** Inbound SMS (senders): one batch of an account's (null: unmatched) received before `before`. */
export interface InboundSmsPurge extends OwnedTables {
  deleteBefore(accountId: AccountId | null, before: number, limit: number): Promise<number>;
}

/** Web-session inbound messages (chatapp-web): one batch of an account's accepted before `beforeId`. */
export interface WebInboundPurge extends OwnedTables {
  deleteBefore(accountId: AccountId, beforeId: string, limit: number): Promise<number>;
}

/** Sandbox deliveries (providers): one batch recorded before `beforeId`. */
export interface SandboxPurge extends OwnedTables {
  deleteBefore(beforeId: string, limit: number): Promise<number>;
}

export interface RetentionParts {
  messages: MessagesPurge;
  bulkJobs: BulkJobsPurge;
  inboundSms: InboundSmsPurge;
  webInbound: WebInboundPurge;
  sandbox: SandboxPurge;
}

/**
 * The parts of retention (issue 29), a port like RecipientErasers: the module that owns a table that
 * grows with traffic provides the part that deletes from it, in bounded batches found by an index range
 * (its SQL stays with the table's owner); the privacy module's purger decides what and when, and never
 * names their tables.
 */
@Injectable()
export class RetentionPurges {
  private readonly parts: Partial<RetentionParts> = {};

  provide<K extends keyof RetentionParts>(kind: K, part: RetentionParts[K]): void {
    if (this.parts[kind]) throw new Error(`retention part ${kind} provided twice`);
    this.parts[kind] = part;
  }

  /** The part of `kind`; a module that was not loaded is a wiring error, not data kept forever in silence. */
  of<K extends keyof RetentionParts>(kind: K): RetentionParts[K] {
    const part = this.parts[kind];
    if (!part) throw new Error(`no retention part ${kind}: its module did not provide it`);
    return part;
  }

  /** The oldest key of `table`, from its owner's part. */
  oldestKey(table: PurgedTable): Promise<string | null> {
    const owner = Object.values(this.parts).find((p) => p.tables.includes(table));
    if (!owner) throw new Error(`no retention part owns ${table}`);
    return owner.oldestKey(table);
  }
}
