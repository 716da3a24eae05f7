import type { ReceiptStatus } from '../../providers/provider-events';
import type { MessageStatus } from '../entities/message.entity';

/** The forward order of the lifecycle; `failed` and `cancelled` are final and outside it. */
const RANK: Partial<Record<MessageStatus, number>> = { scheduled: 0, queued: 1, sent: 2, delivered: 3, read: 4 };

/** What a provider receipt may move a message (or one SMS part) to: everything past `sent`. */
export type ReceiptTarget = Extract<ReceiptStatus, 'delivered' | 'read' | 'failed'>;
/** A part's state as its receipts left it. */
export type PartStatus = 'sent' | ReceiptTarget;

/**
 * The part's status after a receipt, or null when the receipt changes nothing: duplicates, stale
 * (delivered after read), anything after a failure, and a failure after delivered (carriers may
 * send UNDELIV after an intermediate state; we take a failure only while the part is `sent`).
 */
export function nextPartStatus(current: PartStatus, receipt: ReceiptStatus): PartStatus | null {
  if (current === 'failed' || receipt === 'sent') return null;
  if (receipt === 'failed') return current === 'sent' ? 'failed' : null;
  return (RANK[receipt] ?? 0) > (RANK[current] ?? 0) ? receipt : null;
}

/** A multi-part message: failed when any part failed, otherwise as far as its slowest part. */
export function messageTarget(parts: readonly PartStatus[]): PartStatus {
  if (parts.some((p) => p === 'failed')) return 'failed';
  let min: PartStatus = 'read';
  for (const p of parts) if ((RANK[p] ?? 0) < (RANK[min] ?? 0)) min = p;
  return min;
}

/**
 * The statuses a message passes through to reach `target`, in order (empty: no move). `read`
 * from `sent` passes `delivered` too (read implies delivered). A message not sent yet, failed or
 * cancelled is not moved by receipts; failed only from `sent`.
 */
export function stepsTo(current: MessageStatus, target: PartStatus): ReceiptTarget[] {
  if (target === 'sent') return [];
  if (target === 'failed') return current === 'sent' ? ['failed'] : [];
  if (current !== 'sent' && current !== 'delivered') return [];
  const steps: ReceiptTarget[] = [];
  if (current === 'sent') steps.push('delivered');
  if (target === 'read') steps.push('read');
  return steps;
}
