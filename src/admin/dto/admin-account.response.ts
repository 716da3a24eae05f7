import { ApiProperty } from '@nestjs/swagger';
import type { OperatorAccountView } from '../../accounts/accounts.service';
import { AccountResource } from '../../accounts/dto/account.response';
import { PERMISSIONS } from '../../accounts/permissions';
import { KEY_MODES } from '../../accounts/account-mode';

export class IssuedApiKey {
  @ApiProperty({ example: 'key_01JD0Q8Y4C7M2X' }) id: string;
  @ApiProperty({ description: 'The key itself: shown once, store it now.' }) key: string;
  @ApiProperty({ enum: ['owner', 'member'] }) role: string;
  @ApiProperty({
    enum: [...KEY_MODES],
    description: "`test`: the key reads and writes only the account's test data (`msk_test_...`).",
  })
  mode: string;
  @ApiProperty({ type: 'array', items: { type: 'string', enum: [...PERMISSIONS] } }) permissions: string[];
}

/** The account as an operator sees it: the owner's view and the retention only an operator sets. */
export class AdminAccountResource extends AccountResource implements OperatorAccountView {
  @ApiProperty({
    type: 'integer',
    nullable: true,
    minimum: 1,
    description: "Days this account's data is kept after it settles; null: the defaults (RETENTION_*_DAYS).",
    example: null,
  })
  retentionDays: number | null;
}

export class AdminAccountCreated {
  @ApiProperty({
    type: AdminAccountResource,
    description: 'The account as GET /api/v2/account shows it, and its retention.',
  })
  account: AdminAccountResource;
  @ApiProperty({ type: IssuedApiKey }) apiKey: IssuedApiKey;
}

export class AdminAccountUpdated {
  @ApiProperty({
    type: AdminAccountResource,
    description: 'The account as GET /api/v2/account shows it, and its retention.',
  })
  account: AdminAccountResource;
}

export class AdminApiKeyIssued {
  @ApiProperty({ type: IssuedApiKey }) apiKey: IssuedApiKey;
}

export const ADMIN_ACCOUNT_EXAMPLE: AdminAccountResource = {
  id: 'acc_01JD0Q8Y4C7M2X',
  name: 'Acme',
  walletBalance: 100000,
  currency: 'SAR',
  plan: { name: 'Starter', messageQuota: 1000, messagesUsed: 0 },
  freeMessages: 10,
  subscriptionActive: true,
  phoneVerified: true,
  createdAt: '2026-11-22T10:00:00.000Z',
  livemode: true,
  retentionDays: null,
};
export const ISSUED_KEY_EXAMPLE = {
  id: 'key_01JD0Q8Y4C7M2X',
  key: 'msk_live_2b1f6c0e9a8d4f3b7c5e1a9d0f2b4c6e',
  role: 'owner',
  mode: 'live',
  permissions: [...PERMISSIONS],
};

export class AdminAccountPage {
  @ApiProperty({ type: AdminAccountResource, isArray: true, description: 'Newest first.' })
  accounts: AdminAccountResource[];
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Pass as `cursor` for the next page; null on the last page.',
  })
  nextCursor: string | null;
  @ApiProperty() hasMore: boolean;
}
