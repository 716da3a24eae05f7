import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { KeyRole, Permission, PERMISSIONS } from '../../accounts/permissions';
import { KEY_MODES, type KeyMode } from '../../accounts/account-mode';

/** Largest value of the INT counter columns (messageQuota, messagesUsed, freeMessages). */
const INT_COLUMN_MAX = 2147483647;

/**
 * `@IsOptional` for a field that may be left out but not sent as `null`: unlike `@IsOptional`, a
 * `null` still runs the other validators and fails them, instead of reaching a NOT NULL column.
 */
function IsOmittable(): PropertyDecorator {
  return ValidateIf((_dto: object, value: unknown) => value !== undefined);
}

/** Fields an operator may set at creation and change later; each may be omitted, none may be null but planName. */
abstract class AccountFieldsDto {
  @ApiPropertyOptional()
  @IsOmittable()
  @IsBoolean()
  phoneVerified?: boolean;

  @ApiPropertyOptional()
  @IsOmittable()
  @IsBoolean()
  subscriptionActive?: boolean;

  /** Wallet balance in integer minor units. */
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'Integer minor units',
  })
  @IsOmittable()
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  walletBalance?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: INT_COLUMN_MAX })
  @IsOmittable()
  @IsInt()
  @Min(0)
  @Max(INT_COLUMN_MAX)
  freeMessages?: number;

  /** `null` clears the plan. */
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 100, description: '`null` clears the plan' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  planName?: string | null;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: INT_COLUMN_MAX })
  @IsOmittable()
  @IsInt()
  @Min(0)
  @Max(INT_COLUMN_MAX)
  messageQuota?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: INT_COLUMN_MAX })
  @IsOmittable()
  @IsInt()
  @Min(0)
  @Max(INT_COLUMN_MAX)
  messagesUsed?: number;

  /** At most RETENTION_ACCOUNT_MAX_DAYS (checked by the service: 400 past it); `null` returns to the default. */
  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: 36500,
    description:
      "Days this account's messages, bulk jobs and inbound messages are kept after they settle, at most the operator's " +
      'RETENTION_ACCOUNT_MAX_DAYS (400 VALIDATION_ERROR past it); `null` returns the account to the defaults (RETENTION_*_DAYS).',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(36500)
  retentionDays?: number | null;
}

export class CreateAccountDto extends AccountFieldsDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Acme' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name: string;
}

export class UpdateAccountDto extends AccountFieldsDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @IsOmittable()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name?: string;
}

export class CreateApiKeyDto {
  @ApiProperty({ enum: ['owner', 'member'] })
  @IsIn(['owner', 'member'])
  role: KeyRole;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', enum: [...PERMISSIONS] },
    description: 'Member keys only; an owner key has every permission',
  })
  @IsOptional()
  @IsArray()
  @IsIn(PERMISSIONS as unknown as string[], {
    each: true,
    message: `permissions must each be one of: ${PERMISSIONS.join(', ')}`,
  })
  permissions?: Permission[];

  @ApiPropertyOptional({
    enum: [...KEY_MODES],
    description:
      "Omitted: live. `test`: the key reads and writes only the account's test data (test balance, sandbox providers).",
  })
  @IsOptional()
  @IsIn([...KEY_MODES])
  mode?: KeyMode;
}

export class TopUpDto {
  /** Minor units added to the wallet (a top-up never lowers it). */
  @ApiProperty({
    type: 'integer',
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'Integer minor units added to the wallet balance',
    example: 50000,
  })
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  amount: number;
}

export class ListAccountsQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 50 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ maxLength: 500, description: 'nextCursor of the previous page' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  cursor?: string;
}
