import { ApiProperty } from '@nestjs/swagger';
import { PERMISSIONS } from '../../accounts/permissions';
import type { ApiKeyView } from '../../accounts/api-keys.service';
import { KEY_MODES } from '../../accounts/account-mode';

// Response shapes of /api/v2/api-keys. Each class implements the view the service returns, so the
// document and the answers cannot drift apart.

export class ApiKeyResource implements ApiKeyView {
  @ApiProperty({ example: 'key_01jd0r8m6f3q9w2k4x7b5c8v1n' }) id: string;
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'Billing server' }) name: string;
  @ApiProperty({
    description: 'The first 12 characters of the key, to recognise it; the key itself is never shown again.',
    example: 'msk_Xb3kQ9vT',
  })
  prefix: string;
  @ApiProperty({
    enum: ['owner', 'member'],
    description: '`owner` keys have every permission; keys created here are `member` keys, or test owner keys.',
  })
  role: 'owner' | 'member';
  @ApiProperty({
    enum: [...KEY_MODES],
    description: "`test`: a `msk_test_...` key that reads and writes only the account's test data.",
  })
  mode: 'live' | 'test';
  @ApiProperty({ type: 'array', items: { type: 'string', enum: [...PERMISSIONS] } })
  permissions: (typeof PERMISSIONS)[number][];
  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' }) createdAt: string;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When the key last authenticated, to the minute (written at most once a minute); null if never used.',
    example: '2026-11-22T10:05:00.000Z',
  })
  lastUsedAt: string | null;
}

export class NewApiKey extends ApiKeyResource {
  @ApiProperty({
    description: 'The key itself (`msk_` + 40 characters): shown only in this answer, store it now.',
    example: 'msk_Xb3kQ9vT2mN7pL4sR8wY1zC6dF0hJ5aEoP3qW7eR',
  })
  key: string;
}

export class ApiKeyCreated {
  @ApiProperty({ type: () => NewApiKey }) apiKey: NewApiKey;
}

export class ApiKeyList {
  @ApiProperty({
    type: () => ApiKeyResource,
    isArray: true,
    description: 'Active keys, newest first (revoked keys are not listed).',
  })
  apiKeys: ApiKeyResource[];
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Pass as `cursor` for the next page; null on the last page.',
  })
  nextCursor: string | null;
  @ApiProperty() hasMore: boolean;
}

export class ApiKeyRevoked {
  @ApiProperty({ example: 'key_01jd0r8m6f3q9w2k4x7b5c8v1n' }) id: string;
  @ApiProperty({ type: 'boolean', enum: [true] }) revoked: true;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T11:00:00.000Z' }) revokedAt: string;
}

const MEMBER: ApiKeyResource = {
  id: 'key_01jd0r8m6f3q9w2k4x7b5c8v1n',
  name: 'Billing server',
  prefix: 'msk_Xb3kQ9vT',
  role: 'member',
  mode: 'live',
  permissions: ['messages:create', 'messages:read'],
  createdAt: '2026-11-22T10:00:00.000Z',
  lastUsedAt: null,
};

export const CREATED_EXAMPLE = {
  success: true,
  data: { apiKey: { ...MEMBER, key: 'msk_Xb3kQ9vT2mN7pL4sR8wY1zC6dF0hJ5aEoP3qW7eR' } },
};
export const LIST_EXAMPLE = {
  success: true,
  data: {
    apiKeys: [
      { ...MEMBER, lastUsedAt: '2026-11-22T10:05:00.000Z' },
      {
        id: 'key_01jd0q8y4c7m2x5b9n3k6w1r4t',
        name: 'Owner key',
        prefix: 'msk_2b1f6c0e',
        role: 'owner',
        mode: 'live',
        permissions: [...PERMISSIONS],
        createdAt: '2026-11-01T08:00:00.000Z',
        lastUsedAt: '2026-11-22T10:04:00.000Z',
      },
    ],
    nextCursor: null,
    hasMore: false,
  },
};
export const REVOKED_EXAMPLE = {
  success: true,
  data: { id: MEMBER.id, revoked: true, revokedAt: '2026-11-22T11:00:00.000Z' },
};
