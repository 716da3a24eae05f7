import { isLiveAccount } from '../accounts/account-mode';
import { iso } from '../database/columns';
import { NO_DELIVERY, type JobDelivery } from '../messaging/delivery-counts';
import type { BulkJobErrorCode, BulkRowErrorCode } from './bulk-error-codes';
import type { BulkJobRecord, BulkRowRecord, JobStatus, PauseReason } from './bulk-records';
import type { AccountId } from '../common/account-id';

export type { JobStatus, PauseReason } from './bulk-records';

export interface BulkJobView {
  id: string;
  name: string | null;
  status: JobStatus;
  messagesPerSecond: number;
  pauseReason: PauseReason | null;
  /** When the job's marketing rows may go out (sending hours); null unless they wait. */
  quietUntil: string | null;
  total: number;
  validatedCount: number;
  counts: { pending: number; sent: number; failed: number; cancelled: number };
  /** What receipts said about the job's sent messages (read from the message log, not the job row). */
  delivery: JobDelivery;
  errorCode: BulkJobErrorCode | null;
  errorMessage: string | null;
  createdAt: string;
  livemode: boolean;
}

/** The spec's Bulk job object, with the job's delivery counts (zeros for a job nothing was sent for yet). */
export function toJobView(r: BulkJobRecord, delivery: JobDelivery = NO_DELIVERY): BulkJobView {
  return {
    id: r.id,
    name: r.name,
    status: r.status,
    messagesPerSecond: r.messagesPerSecond,
    pauseReason: r.status === 'paused' ? r.pauseReason : null,
    quietUntil: r.status === 'running' || r.status === 'queued' ? iso(r.quietUntil) : null,
    total: r.total,
    validatedCount: r.validatedCount,
    counts: { pending: r.pendingCount, sent: r.sentCount, failed: r.failedCount, cancelled: r.cancelledCount },
    delivery: { delivered: delivery.delivered, read: delivery.read, undelivered: delivery.undelivered },
    errorCode: r.errorCode,
    errorMessage: r.errorMessage,
    createdAt: iso(r.createdAt) as string,
    livemode: isLiveAccount(r.accountId),
  };
}

/** Row statuses a report may filter on, and the stored statuses each covers. */
export const ROW_FILTERS: Readonly<Record<string, readonly string[]>> = {
  pending: ['pending', 'sending'],
  sent: ['sent'],
  failed: ['failed'],
  cancelled: ['cancelled'],
  invalid: ['invalid'],
};
export const ROW_STATUS_FILTERS = Object.keys(ROW_FILTERS);

export interface BulkRowView {
  index: number;
  to: string | null;
  channel: string | null;
  purpose: string;
  status: string;
  messageId: string | null;
  errorCode: BulkRowErrorCode | null;
  errorMessage: string | null;
  sentAt: string | null;
  /** From the row's message (local_sms, sent or failed); null before the row has one. */
  encoding: string | null;
  segments: number | null;
  /** Sent rows: what receipts said of the message (`sent` until one arrives); null otherwise. */
  deliveryStatus: RowDeliveryStatus | null;
  deliveredAt: string | null;
  livemode: boolean;
}

export const ROW_DELIVERY_STATUSES = ['sent', 'delivered', 'read', 'undelivered'] as const;
export type RowDeliveryStatus = (typeof ROW_DELIVERY_STATUSES)[number];

/** A sent row's message status as the row report names it: a message failed by a receipt was sent but not delivered. */
function deliveryStatus(rowStatus: string, messageStatus: unknown): RowDeliveryStatus | null {
  if (rowStatus !== 'sent' || messageStatus === null || messageStatus === undefined) return null;
  if (messageStatus === 'delivered' || messageStatus === 'read') return messageStatus;
  return messageStatus === 'failed' ? 'undelivered' : 'sent';
}

const hasMessage = (status: string): boolean => status === 'sent' || status === 'failed';

/** A row of a job of `accountId` (rows carry their job's id, not the account's). */
export function toRowView(r: BulkRowRecord, accountId: AccountId): BulkRowView {
  const withMessage = hasMessage(r.status);
  return {
    index: r.idx,
    to: r.to,
    channel: r.channel,
    purpose: r.purpose,
    // `sending` is an internal claim marker: outwardly the row is still pending.
    status: r.status === 'sending' ? 'pending' : r.status,
    messageId: withMessage ? r.messageId : null,
    errorCode: r.errorCode,
    errorMessage: r.errorMessage,
    sentAt: r.sentAt === null ? null : iso(r.sentAt),
    encoding: withMessage ? r.encoding : null,
    segments: withMessage ? r.segments : null,
    deliveryStatus: deliveryStatus(r.status, r.messageStatus),
    deliveredAt: r.status === 'sent' && r.deliveredAt !== null ? iso(r.deliveredAt) : null,
    livemode: isLiveAccount(accountId),
  };
}
