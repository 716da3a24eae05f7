/** A review status the official provider reports, in our vocabulary. */
export type ProviderReviewStatus = 'pending' | 'approved' | 'rejected';

/**
 * The provider's template statuses (submit receipt, status poll) and status-callback events, one map
 * for all three. PAUSED (quality pause) maps to `rejected`: a paused template cannot be sent, and the
 * provider's REINSTATED (or APPROVED) event moves it back. Anything not listed is ignored.
 */
const PROVIDER_STATUSES: Record<string, ProviderReviewStatus> = {
  PENDING: 'pending',
  IN_APPEAL: 'pending',
  APPROVED: 'approved',
  REINSTATED: 'approved',
  REJECTED: 'rejected',
  DISABLED: 'rejected',
  PAUSED: 'rejected',
};

export function mapProviderStatus(raw: unknown): ProviderReviewStatus | null {
  return typeof raw === 'string' ? (PROVIDER_STATUSES[raw.toUpperCase()] ?? null) : null;
}

/** The provider's rejection reason; it sends 'NONE' (or nothing) when there is none. */
export function providerReason(raw: unknown): string | null {
  return typeof raw === 'string' && raw !== '' && raw !== 'NONE' ? raw : null;
}
