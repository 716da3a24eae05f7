import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { KeyRole, Permission, PERMISSIONS } from '../../accounts/permissions';
import { KEY_MODES, type KeyMode } from '../../accounts/account-mode';

/** POST /api/v2/api-keys (the global ValidationPipe answers 400 VALIDATION_ERROR naming the field). */
export class CreateApiKeyRequest {
  @ApiProperty({
    minLength: 1,
    maxLength: 100,
    description: 'How the owner recognises the key; trimmed.',
    example: 'Billing server',
  })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @Length(1, 100, { message: 'name must be 1 to 100 characters (leading and trailing spaces are trimmed)' })
  // The name is shown in the console and in logs: no line breaks or other control characters.
  @Matches(/^[^\p{Cc}]*$/u, { message: 'name must not contain control characters' })
  name: string;

  @ApiPropertyOptional({
    type: 'array',
    minItems: 1,
    uniqueItems: true,
    items: { type: 'string', enum: [...PERMISSIONS] },
    description:
      'What the member key may do; at least one, each once. Required for a member key; left out for a test owner key (it has every permission).',
    example: ['messages:create', 'messages:read'],
  })
  @ValidateIf((o: CreateApiKeyRequest) => o.role !== 'owner' || o.permissions !== undefined)
  @IsArray()
  @ArrayNotEmpty({ message: 'permissions must list at least one permission' })
  @ArrayUnique({ message: 'permissions must not list a permission twice' })
  @IsIn(PERMISSIONS as unknown as string[], {
    each: true,
    message: `permissions must each be one of: ${PERMISSIONS.join(', ')}`,
  })
  permissions?: Permission[];

  @ApiPropertyOptional({
    enum: [...KEY_MODES],
    description:
      "Omitted: the calling key's mode. `test`: a `msk_test_...` key that reads and writes only the account's test data (test balance, sandbox providers, test-mode controls). A test key cannot create a live key (403 FORBIDDEN).",
    example: 'test',
  })
  @IsOptional()
  @IsIn([...KEY_MODES], { message: 'mode must be live or test' })
  mode?: KeyMode;

  @ApiPropertyOptional({
    enum: ['member', 'owner'],
    description:
      'Omitted: member. `owner` is only for test keys: a test owner key acts as the owner in test mode (event endpoints, senders, web-session webhook, test-mode controls) and can never create, list or revoke live keys.',
    example: 'member',
  })
  @IsOptional()
  @IsIn(['member', 'owner'], { message: 'role must be member or owner' })
  role?: KeyRole;
}

/** Query of GET /api/v2/api-keys. */
export class ListApiKeysQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 50, description: 'Page size.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({
    maxLength: 500,
    description: '`nextCursor` of the previous page (opaque; VALIDATION_ERROR when altered).',
  })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  cursor?: string;
}
