import { ApiProperty } from '@nestjs/swagger';
import { ApiLivemode } from '../../common/openapi';

const STATUSES = ['pending', 'approved', 'rejected'];

/** An SMS sender name as its account sees it right after the request. */
export class SmsSender {
  @ApiProperty({ example: 'snd_01JD0Q8Y4C7M2X' }) id: string;
  @ApiProperty({ example: 'MyShop' }) name: string;
  @ApiProperty({ enum: STATUSES }) status: string;
  @ApiProperty({
    enum: ['transactional', 'promotional'],
    description: 'promotional (name ends in -AD): sends marketing messages only; marketing SMS go out only from one.',
  })
  type: string;
  @ApiProperty({
    description:
      'The account sends from this sender when a local_sms message names none (POST /api/v2/sms-senders/{id}/default); at most one per account.',
  })
  isDefault: boolean;
  @ApiProperty({ description: 'A webhook URL (and secret) receives the review decision.' }) webhookConfigured: boolean;
  @ApiLivemode() livemode: boolean;
}

/** A sender with its review details (list and review answers). */
export class SmsSenderDetail extends SmsSender {
  @ApiProperty({ type: 'string', nullable: true, description: "The reviewer's reason, if one was given." }) reason:
    string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) reviewedAt: string | null;
  @ApiProperty({ type: 'string', format: 'date-time' }) createdAt: string;
}

export class AdminSmsSender extends SmsSenderDetail {
  @ApiProperty({ example: 'acc_01JD0Q8Y4C7M2X' }) accountId: string;
}

export class SmsSenderCreated {
  @ApiProperty({ type: SmsSender }) smsSender: SmsSender;
}

export class SmsSenderEntry {
  @ApiProperty({ type: SmsSenderDetail }) smsSender: SmsSenderDetail;
}

export class SmsSenderList {
  @ApiProperty({ type: [SmsSenderDetail] }) smsSenders: SmsSenderDetail[];
}

export class AdminSmsSenderList {
  @ApiProperty({ type: [AdminSmsSender] }) smsSenders: AdminSmsSender[];
}

export class AdminSmsSenderReviewed {
  @ApiProperty({ type: AdminSmsSender }) smsSender: AdminSmsSender;
}

export class SmsSenderCreatedResponse {
  @ApiProperty({ type: 'boolean', enum: [true] }) success: true;
  @ApiProperty({ example: 'SMS sender request submitted for review' }) message: string;
  @ApiProperty({ type: SmsSenderCreated }) data: SmsSenderCreated;
}

export const SENDER_EXAMPLE = {
  id: 'snd_01JD0Q8Y4C7M2X',
  name: 'MyShop',
  status: 'pending',
  type: 'transactional',
  isDefault: false,
  webhookConfigured: true,
  livemode: true,
};
export const SENDER_DETAIL_EXAMPLE = {
  ...SENDER_EXAMPLE,
  reason: null,
  reviewedAt: null,
  createdAt: '2026-11-22T10:00:00.000Z',
};
export const ADMIN_SENDER_EXAMPLE = {
  ...SENDER_DETAIL_EXAMPLE,
  accountId: 'acc_01JD0Q8Y4C7M2X',
  status: 'approved',
  isDefault: true,
  reason: 'Brand verified',
  reviewedAt: '2026-11-22T11:00:00.000Z',
};
