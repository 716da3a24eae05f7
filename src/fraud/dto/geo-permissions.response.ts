import { ApiProperty } from '@nestjs/swagger';
import type { GeoPermissionsView } from '../geo-permissions.service';

// Response shapes of the geo permission routes; the classes implement the service's view.

const LIST = { type: 'array' as const, items: { type: 'string' } };

export class GeoChannelLists implements Record<'local_sms' | 'chatapp' | 'chatapp_web', string[]> {
  @ApiProperty({ ...LIST, description: 'ISO 3166-1 codes; `["*"]`: every country; `[]`: none.', example: ['SA'] })
  local_sms: string[];
  @ApiProperty({ ...LIST, example: ['SA'] }) chatapp: string[];
  @ApiProperty({ ...LIST, description: 'Direct chats only; group chats are not restricted.', example: ['SA'] })
  chatapp_web: string[];
}

export class GeoPermissionsResource implements GeoPermissionsView {
  @ApiProperty({
    type: GeoChannelLists,
    description:
      'Per channel with phone numbers, the countries a recipient may be in. email and messaging_bot are not restricted.',
  })
  channels: GeoChannelLists;
  @ApiProperty({
    ...LIST,
    description: 'The countries the owner may choose from (set by the operator).',
    example: ['SA'],
  })
  ownerSelectable: string[];
  @ApiProperty({
    enum: ['default', 'account'],
    description: '`default`: the service default (DEFAULT_ALLOWED_COUNTRIES); `account`: set for this account.',
  })
  source: 'default' | 'account';
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'Null while `source` is `default`.',
  })
  updatedAt: string | null;
}

export class GeoPermissionsResult {
  @ApiProperty({ type: GeoPermissionsResource }) geoPermissions: GeoPermissionsResource;
}

export const GEO_PERMISSIONS_EXAMPLE = {
  success: true,
  data: {
    geoPermissions: {
      channels: { local_sms: ['SA'], chatapp: ['AE', 'SA'], chatapp_web: ['SA'] },
      ownerSelectable: ['AE', 'SA'],
      source: 'account',
      updatedAt: '2026-11-22T10:00:00.000Z',
    },
  },
};
