import { ApiProperty } from '@nestjs/swagger';
import { PERMISSIONS } from '../../auth/permissions';

class AdminAccountPlan {
  @ApiProperty({ type: 'string', nullable: true }) name: string | null;
  @ApiProperty({ type: 'integer', minimum: 0 }) messageQuota: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) messagesUsed: number;
}

export class AdminAccount {
  @ApiProperty({ example: 'acc_01JD0Q8Y4C7M2X' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Integer minor units' }) walletBalance: number;
  @ApiProperty({ example: 'SAR' }) currency: string;
  @ApiProperty({ type: AdminAccountPlan }) plan: AdminAccountPlan;
  @ApiProperty({ type: 'integer', minimum: 0 }) freeMessages: number;
  @ApiProperty() subscriptionActive: boolean;
  @ApiProperty() phoneVerified: boolean;
  @ApiProperty({ type: 'string', format: 'date-time' }) createdAt: string;
}

export class IssuedApiKey {
  @ApiProperty({ example: 'key_01JD0Q8Y4C7M2X' }) id: string;
  @ApiProperty({ description: 'The key itself: shown once, store it now.' }) key: string;
  @ApiProperty({ enum: ['owner', 'member'] }) role: string;
  @ApiProperty({ type: 'array', items: { type: 'string', enum: [...PERMISSIONS] } }) permissions: string[];
}

export class AdminAccountCreated {
  @ApiProperty({ type: AdminAccount }) account: AdminAccount;
  @ApiProperty({ type: IssuedApiKey }) apiKey: IssuedApiKey;
}

export class AdminAccountUpdated {
  @ApiProperty({ type: AdminAccount }) account: AdminAccount;
}

export class AdminApiKeyIssued {
  @ApiProperty({ type: IssuedApiKey }) apiKey: IssuedApiKey;
}

export const ADMIN_ACCOUNT_EXAMPLE = {
  id: 'acc_01JD0Q8Y4C7M2X',
  name: 'Acme',
  walletBalance: 100000,
  currency: 'SAR',
  plan: { name: 'Starter', messageQuota: 1000, messagesUsed: 0 },
  freeMessages: 10,
  subscriptionActive: true,
  phoneVerified: true,
  createdAt: '2026-11-22T10:00:00.000Z',
};
export const ISSUED_KEY_EXAMPLE = { id: 'key_01JD0Q8Y4C7M2X', key: 'msk_live_2b1f6c0e9a8d4f3b7c5e1a9d0f2b4c6e', role: 'owner', permissions: [...PERMISSIONS] };
