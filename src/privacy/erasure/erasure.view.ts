import { isLiveAccount } from '../../accounts/account-mode';
import { iso } from '../../database/columns';
import type { ErasureCounts, ErasureRecord, ErasureStatus } from './erasures.repository';

/** Every kind an erasure counts, in the order the API shows them (0 until rows of that kind are erased). */
export const ERASURE_KINDS = [
  'messages',
  'bulkRows',
  'inboundSms',
  'webInbound',
  'verifications',
  'webhookDeliveries',
  'suppressions',
  'sandboxDeliveries',
] as const;

export interface ErasureView {
  id: string;
  status: ErasureStatus;
  /** The one-way hash that now stands for the recipient in every erased row. */
  recipientHash: string;
  counts: ErasureCounts;
  createdAt: string;
  completedAt: string | null;
  livemode: boolean;
}

export function erasureView(e: ErasureRecord): ErasureView {
  const counts: ErasureCounts = {};
  for (const k of ERASURE_KINDS) counts[k] = e.counts[k] ?? 0;
  for (const [k, v] of Object.entries(e.counts)) counts[k] = v;
  return {
    id: e.id,
    status: e.status,
    recipientHash: e.recipientHash,
    counts,
    createdAt: iso(e.createdAt) as string,
    completedAt: iso(e.completedAt),
    livemode: isLiveAccount(e.accountId),
  };
}
