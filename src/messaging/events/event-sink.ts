import type { Tx } from '../../database/unit-of-work';
import type { AccountId } from '../../common/account-id';

/** Every event type an account can subscribe to (issue 13; `events` also takes `x.*` prefixes and `*`). */
export const EVENT_TYPES = [
  'message.sent',
  'message.delivered',
  'message.read',
  'message.failed',
  'bulk_job.queued',
  'bulk_job.rejected',
  'bulk_job.paused',
  'bulk_job.completed',
  'bulk_job.cancelled',
  'template.approved',
  'template.rejected',
  'sms_sender.approved',
  'sms_sender.rejected',
  'chatapp_web.message.received',
  'sms.received',
  'verification.fraud_blocked',
  'verification.fraud_unblocked',
  'privacy.erasure.completed',
  'recipient.opted_out',
  'recipient.opted_in',
  'webhook.test',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Something that happened to an account's resource, for its subscribed event endpoints. */
export interface DomainEvent {
  accountId: AccountId;
  type: EventType;
  /** The body's `data` (Standard Webhooks `{ type, timestamp, data }`): the resource as the API shows it. */
  data: Record<string, unknown>;
  /** When it happened (epoch ms): the body's `timestamp`. */
  at: number;
}

/**
 * Port (messaging sits below webhooks): where status changes write their events. `record` joins
 * `tx`, so the events exist if and only if the change that caused them commits; one call takes
 * many events (a bulk window's messages) and costs a bounded number of statements, not one per
 * event per endpoint. Provided by WebhooksModule (global) as the outbox fan-out.
 */
export interface EventSink {
  record(tx: Tx, events: readonly DomainEvent[]): Promise<void>;
  /**
   * Of these accounts, those that may get events at all (an enabled endpoint), so a caller with many
   * events builds only theirs (a bulk window's messages of accounts without endpoints build none).
   * Absent: every account may.
   */
  listeners?(tx: Tx, accountIds: readonly AccountId[]): Promise<ReadonlySet<string>>;
}

export const EVENT_SINK = Symbol('EVENT_SINK');
