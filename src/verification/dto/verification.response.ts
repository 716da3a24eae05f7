import { ApiProperty } from '@nestjs/swagger';
import { ApiLivemode } from '../../common/openapi';
import type { ChannelName } from '../../config/app-config';
import type { CheckedVerificationView, SentVerificationView } from './verification.view';

export class SentVerification implements SentVerificationView {
  @ApiProperty({ description: 'Pass it to POST /api/v2/verification/check.', example: 'ver_01m7y90kewyw5pyx06wnaqb2' })
  verificationId: string;

  @ApiProperty({
    description: 'The recipient as normalised: E.164 phone or lowercased email.',
    example: '+966501234567',
  })
  to: string;

  @ApiProperty({ enum: ['local_sms', 'chatapp', 'email'], example: 'local_sms' })
  channel: ChannelName;

  @ApiProperty({ enum: ['pending'], example: 'pending' })
  status: 'pending';

  @ApiProperty({
    format: 'date-time',
    description: 'The code is refused after this time.',
    example: '2026-11-22T10:25:30.000Z',
  })
  expiresAt: string;

  @ApiLivemode()
  livemode: boolean;
}

export class VerificationCheckResult implements CheckedVerificationView {
  @ApiProperty({ example: 'ver_01m7y90kewyw5pyx06wnaqb2' })
  verificationId: string;

  @ApiProperty({
    enum: ['approved', 'pending', 'expired'],
    description:
      '`pending`: wrong code, checks left; `approved`: a right code was given (now or before); `expired`: too late, send a new code.',
    example: 'approved',
  })
  status: CheckedVerificationView['status'];

  @ApiProperty({
    description: 'True only in the answer to the one check that approved the verification.',
    example: true,
  })
  valid: boolean;

  @ApiLivemode()
  livemode: boolean;
}

export const SENT_VERIFICATION_EXAMPLE: { success: true; data: SentVerification } = {
  success: true,
  data: {
    verificationId: 'ver_01m7y90kewyw5pyx06wnaqb2',
    to: '+966501234567',
    channel: 'local_sms',
    status: 'pending',
    expiresAt: '2026-11-22T10:25:30.000Z',
    livemode: true,
  },
};

export const CHECKED_VERIFICATION_EXAMPLE: { success: true; data: VerificationCheckResult } = {
  success: true,
  data: { verificationId: 'ver_01m7y90kewyw5pyx06wnaqb2', status: 'approved', valid: true, livemode: true },
};
