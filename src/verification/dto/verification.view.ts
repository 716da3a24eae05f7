import { isLiveAccount } from '../../accounts/account-mode';
import type { ChannelName } from '../../config/app-config';
import { iso } from '../../database/columns';
import type { VerificationEntity } from '../entities/verification.entity';

export interface SentVerificationView {
  verificationId: string;
  to: string;
  channel: ChannelName;
  status: 'pending';
  expiresAt: string;
  livemode: boolean;
}

export interface CheckedVerificationView {
  verificationId: string;
  status: 'approved' | 'pending' | 'expired';
  /** True only for the one check that approved the verification. */
  valid: boolean;
  livemode: boolean;
}

/** The answer to a send: the verification just stored, now pending. */
export function toSentVerificationView(row: VerificationEntity): SentVerificationView {
  return {
    verificationId: row.id,
    to: row.recipient,
    channel: row.channel,
    status: 'pending',
    expiresAt: iso(row.expiresAt) as string,
    livemode: isLiveAccount(row.accountId),
  };
}

/** The answer to a check: the verification's status as this check left it. */
export function toCheckedVerificationView(
  row: VerificationEntity,
  status: CheckedVerificationView['status'],
  valid: boolean,
): CheckedVerificationView {
  return { verificationId: row.id, status, valid, livemode: isLiveAccount(row.accountId) };
}
