import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsObject, IsOptional, IsString, Matches, ValidateNested } from 'class-validator';

// Requests of the geo permission routes. The pipe checks the shape (400 VALIDATION_ERROR naming the
// field); the service checks that each code is a country and that lists stay within the ceiling.

const CODE = /^(?:[A-Za-z]{2}|\*)$/;
const MAX_CODES = 300;

function countryList(description: string, example: string[]) {
  return {
    type: 'array' as const,
    maxItems: MAX_CODES,
    items: { type: 'string', pattern: '^(?:[A-Za-z]{2}|\\*)$' },
    description,
    example,
  };
}

/** Class-validator rules of one list of country codes. */
function CountryCodes(): PropertyDecorator {
  return (target, key) => {
    IsArray()(target, key);
    ArrayMaxSize(MAX_CODES)(target, key);
    IsString({ each: true })(target, key);
    Matches(CODE, { each: true, message: `${String(key)} must list two-letter country codes, or "*" alone` })(
      target,
      key,
    );
  };
}

export class GeoChannelListsDto {
  @ApiPropertyOptional(countryList('Countries `local_sms` may send to; `["*"]`: every country; `[]`: none.', ['SA']))
  @IsOptional()
  @CountryCodes()
  local_sms?: string[];

  @ApiPropertyOptional(countryList('Countries `chatapp` may send to.', ['SA', 'AE']))
  @IsOptional()
  @CountryCodes()
  chatapp?: string[];

  @ApiPropertyOptional(
    countryList('Countries `chatapp_web` may send to (direct chats; groups are not restricted).', ['SA']),
  )
  @IsOptional()
  @CountryCodes()
  chatapp_web?: string[];
}

/** PATCH /api/v2/account/geo-permissions */
export class UpdateGeoPermissionsDto {
  @ApiProperty({
    type: GeoChannelListsDto,
    description: 'The lists to change (the others stay); each within `ownerSelectable`.',
  })
  @IsObject()
  @ValidateNested()
  @Type(() => GeoChannelListsDto)
  channels: GeoChannelListsDto;
}

/** PUT /admin/v1/accounts/:id/geo-permissions */
export class SetGeoPermissionsDto {
  @ApiProperty(
    countryList('The countries the owner may choose from (the ceiling); `["*"]`: every country.', ['SA', 'AE', 'KW']),
  )
  @CountryCodes()
  ownerSelectable: string[];

  @ApiPropertyOptional({
    type: GeoChannelListsDto,
    description:
      "Lists to set, each within `ownerSelectable`. A list not given keeps the account's own list cut to the new ceiling; an account without its own permissions gets the ceiling.",
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => GeoChannelListsDto)
  channels?: GeoChannelListsDto;
}
