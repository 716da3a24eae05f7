import type { ChannelName } from '../../config/app-config';
import { iso } from '../../database/columns';
import type { Row } from '../../database/sql';
import { AccountId, accountIdOf } from '../../common/account-id';

/** The sandbox's records (deliveries and faults) and the one mapping function of each row it reads. */

export const SANDBOX_FAULT_KINDS = ['rate_limit', 'unavailable', 'reject', 'timeout', 'delay'] as const;
export type SandboxFaultKind = (typeof SANDBOX_FAULT_KINDS)[number];
/** A fault taken by one call; `delayMs` only for `delay` (answer normally after that long). */
export interface SandboxFault {
  kind: SandboxFaultKind;
  delayMs: number | null;
}

/** What the sandbox keeps of one call, as recorded and as listed. */
interface SandboxDelivery {
  messageId: string;
  accountId: AccountId;
  channel: string;
  to: string;
  sender: string | null;
  text: string | null;
  subject: string | null;
  bulkJobId: string | null;
  rowIndex: number | null;
}

export interface SandboxDeliveryInput extends SandboxDelivery {
  channel: ChannelName;
  outcome: 'sent' | 'rejected';
  providerMessageId: string;
  /** The first simulated receipt of a sent message (`delivered`, or `failed` for the documented recipients) and when it is due. */
  receipt: { stage: 'delivered' | 'failed'; dueAt: number } | null;
  /** A test bulk job's `testOptions.instantReceipts`: every receipt of this delivery is due at once. */
  instantReceipts: boolean;
}

export interface SandboxDeliveryView extends SandboxDelivery {
  id: string;
  deliveredAt: string;
}

export interface SandboxDeliveryFilter {
  accountId?: AccountId;
  channel?: string;
  to?: string;
  bulkJobId?: string;
  limit: number;
}

/** What the sandbox answered a message (found again by its id). */
export interface SandboxOutcome {
  outcome: 'sent' | 'rejected';
  providerMessageId: string;
}

export function toSandboxOutcome(r: Row): SandboxOutcome {
  return { outcome: r.outcome === 'sent' ? 'sent' : 'rejected', providerMessageId: String(r.provider_message_id) };
}

export function toDeliveryView(r: Row): SandboxDeliveryView {
  return {
    id: String(r.id),
    messageId: String(r.message_id),
    accountId: accountIdOf(String(r.account_id)),
    channel: String(r.channel),
    to: String(r.recipient),
    sender: r.sender === null ? null : String(r.sender),
    text: r.text === null ? null : String(r.text),
    subject: r.subject === null ? null : String(r.subject),
    bulkJobId: r.bulk_job_id === null ? null : String(r.bulk_job_id),
    rowIndex: r.row_index === null ? null : Number(r.row_index),
    deliveredAt: iso(Number(r.delivered_at)) as string,
  };
}

/** A fault with calls left, and its id (to take one of them). */
export interface PendingFault extends SandboxFault {
  id: string;
}

export function toPendingFault(r: Row): PendingFault {
  return {
    id: String(r.id),
    kind: r.kind as SandboxFaultKind,
    delayMs: r.delay_ms === null ? null : Number(r.delay_ms),
  };
}
