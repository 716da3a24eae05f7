import { IsArray, IsBoolean, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { KeyRole, Permission, PERMISSIONS } from '../../auth/permissions';

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
  @IsOmittable() @IsBoolean()
  phoneVerified?: boolean;

  @IsOmittable() @IsBoolean()
  subscriptionActive?: boolean;

  /** Wallet balance in integer minor units. */
  @IsOmittable() @IsInt() @Min(0) @Max(Number.MAX_SAFE_INTEGER)
  walletBalance?: number;

  @IsOmittable() @IsInt() @Min(0) @Max(INT_COLUMN_MAX)
  freeMessages?: number;

  /** `null` clears the plan. */
  @IsOptional() @IsString() @MaxLength(100)
  planName?: string | null;

  @IsOmittable() @IsInt() @Min(0) @Max(INT_COLUMN_MAX)
  messageQuota?: number;

  @IsOmittable() @IsInt() @Min(0) @Max(INT_COLUMN_MAX)
  messagesUsed?: number;
}

export class CreateAccountDto extends AccountFieldsDto {
  @IsString() @IsNotEmpty() @MaxLength(200)
  name: string;
}

export class UpdateAccountDto extends AccountFieldsDto {
  @IsOmittable() @IsString() @IsNotEmpty() @MaxLength(200)
  name?: string;
}

export class CreateApiKeyDto {
  @IsIn(['owner', 'member'])
  role: KeyRole;

  @IsOptional() @IsArray() @IsIn(PERMISSIONS as unknown as string[], { each: true, message: `permissions must each be one of: ${PERMISSIONS.join(', ')}` })
  permissions?: Permission[];
}
