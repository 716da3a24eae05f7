import { ApiProperty } from '@nestjs/swagger';
import type { AccountView } from '../accounts.service';

export class AccountPlan {
  @ApiProperty({ type: 'string', nullable: true, description: 'Plan name; null without a plan.', example: 'Business' })
  name: string | null;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Messages the plan pays for.', example: 1000 })
  messageQuota: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Messages already paid from the quota.', example: 120 })
  messagesUsed: number;
}

/** GET /api/v2/account (implements the view, so the two cannot drift apart). */
export class AccountResource implements AccountView {
  @ApiProperty({ example: 'acc_01jd0r8m6f3q9w2k4x7b5c8v1n' })
  id: string;

  @ApiProperty({ example: 'My Shop' })
  name: string;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Wallet balance in minor units of `currency` (e.g. halalas).',
    example: 25000,
  })
  walletBalance: number;

  @ApiProperty({ minLength: 3, maxLength: 3, description: 'ISO 4217 code (CURRENCY).', example: 'SAR' })
  currency: string;

  @ApiProperty({ type: () => AccountPlan })
  plan: AccountPlan;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Free messages left; spent before the plan quota and the wallet.',
    example: 10,
  })
  freeMessages: number;

  @ApiProperty({ description: 'False: sending answers 403 SUBSCRIPTION_INACTIVE.', example: true })
  subscriptionActive: boolean;

  @ApiProperty({ description: 'False: routes that create things answer 403 FORBIDDEN.', example: true })
  phoneVerified: boolean;

  @ApiProperty({ format: 'date-time', example: '2026-11-01T08:00:00.000Z' })
  createdAt: string;

  @ApiProperty({
    description:
      'False when a test key (`msk_test_...`) reads the account: then the balance is the test balance (no quota or free messages).',
    example: true,
  })
  livemode: boolean;
}

export const ACCOUNT_EXAMPLE: { success: true; data: AccountResource } = {
  success: true,
  data: {
    id: 'acc_01jd0r8m6f3q9w2k4x7b5c8v1n',
    name: 'My Shop',
    walletBalance: 25000,
    currency: 'SAR',
    plan: { name: 'Business', messageQuota: 1000, messagesUsed: 120 },
    freeMessages: 10,
    subscriptionActive: true,
    phoneVerified: true,
    createdAt: '2026-11-01T08:00:00.000Z',
    livemode: true,
  },
};
