import { iso } from '../database/columns';
import type { JobDelivery } from '../messaging/delivery-counts';
import type { BulkJobErrorCode, BulkRowErrorCode } from './bulk-error-codes';

export type JobStatus = 'accepting' | 'validating' | 'rejected' | 'queued' | 'running' | 'paused' | 'completed' | 'cancelled';
export type PauseReason = 'insufficient_balance' | 'provider_rate_limit' | 'user';

/** A bulk_jobs row as read with `SELECT *` (numbers may come back as strings from the driver). */
export type JobRow = Record<string, unknown>;

export interface BulkJobView {
  id: string;
  name: string | null;
  status: JobStatus;
  messagesPerSecond: number;
  pauseReason: PauseReason | null;
  total: number;
  validatedCount: number;
  counts: { pending: number; sent: number; failed: number; cancelled: number };
  /** What receipts said about the job's sent messages (read from the message log, not the job row). */
  delivery: JobDelivery;
  errorCode: BulkJobErrorCode | null;
  errorMessage: string | null;
  createdAt: string;
}

const n = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
const s = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** The spec's Bulk job object, with the job's delivery counts (zeros for a job nothing was sent for yet). */
export function toJobView(r: JobRow, delivery: JobDelivery = { delivered: 0, read: 0, undelivered: 0 }): BulkJobView {
  const status = String(r.status) as JobStatus;
  return {
    id: String(r.id),
    name: s(r.name),
    status,
    messagesPerSecond: n(r.messages_per_second),
    pauseReason: status === 'paused' ? (s(r.pause_reason) as PauseReason | null) : null,
    total: n(r.total),
    validatedCount: n(r.validated_count),
    counts: { pending: n(r.pending_count), sent: n(r.sent_count), failed: n(r.failed_count), cancelled: n(r.cancelled_count) },
    delivery: { delivered: delivery.delivered, read: delivery.read, undelivered: delivery.undelivered },
    errorCode: s(r.error_code) as BulkJobErrorCode | null,
    errorMessage: s(r.error_message),
    createdAt: iso(n(r.created_at)) as string,
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
}

export const ROW_DELIVERY_STATUSES = ['sent', 'delivered', 'read', 'undelivered'] as const;
export type RowDeliveryStatus = (typeof ROW_DELIVERY_STATUSES)[number];

/** A sent row's message status as the row report names it: a message failed by a receipt was sent but not delivered. */
function deliveryStatus(rowStatus: string, messageStatus: unknown): RowDeliveryStatus | null {
  if (rowStatus !== 'sent' || messageStatus === null || messageStatus === undefined) return null;
  if (messageStatus === 'delivered' || messageStatus === 'read') return messageStatus;
  return messageStatus === 'failed' ? 'undelivered' : 'sent';
}

const messageId = (status: string): boolean => status === 'sent' || status === 'failed';

export function toRowView(r: Record<string, unknown>): BulkRowView {
  const status = String(r.status);
  return {
    index: n(r.idx),
    to: s(r.to_addr),
    channel: s(r.channel),
    // `sending` is an internal claim marker: outwardly the row is still pending.
    status: status === 'sending' ? 'pending' : status,
    messageId: messageId(status) ? s(r.message_id) : null,
    errorCode: s(r.error_code) as BulkRowErrorCode | null,
    errorMessage: s(r.error_message),
    sentAt: r.sent_at === null || r.sent_at === undefined ? null : iso(n(r.sent_at)),
    encoding: messageId(status) ? s(r.encoding) : null,
    segments: messageId(status) && r.segments !== null && r.segments !== undefined ? n(r.segments) : null,
    deliveryStatus: deliveryStatus(status, r.message_status),
    deliveredAt: status === 'sent' && r.delivered_at !== null && r.delivered_at !== undefined ? iso(n(r.delivered_at)) : null,
  };
}
