import type { ChannelName } from '../../config/app-config';

export interface SentVerificationView {
  verificationId: string;
  to: string;
  channel: ChannelName;
  status: 'pending';
  expiresAt: string;
}

export interface CheckedVerificationView {
  verificationId: string;
  status: 'approved' | 'pending' | 'expired';
  /** True only for the one check that approved the verification. */
  valid: boolean;
}
