import { IsArray, IsBoolean, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, MaxLength, Min } from 'class-validator';
import { KeyRole, Permission, PERMISSIONS } from '../../auth/permissions';

export class UpdateAccountDto {
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(200)
  name?: string;

  @IsOptional() @IsBoolean()
  phoneVerified?: boolean;

  @IsOptional() @IsBoolean()
  subscriptionActive?: boolean;

  /** Wallet balance in integer minor units. */
  @IsOptional() @IsInt() @Min(0)
  walletBalance?: number;

  @IsOptional() @IsInt() @Min(0)
  freeMessages?: number;

  @IsOptional() @IsString() @MaxLength(100)
  planName?: string;

  @IsOptional() @IsInt() @Min(0)
  messageQuota?: number;

  @IsOptional() @IsInt() @Min(0)
  messagesUsed?: number;
}

export class CreateAccountDto extends UpdateAccountDto {
  @IsString() @IsNotEmpty() @MaxLength(200)
  declare name: string;
}

export class CreateApiKeyDto {
  @IsIn(['owner', 'member'])
  role: KeyRole;

  @IsOptional() @IsArray() @IsIn(PERMISSIONS as unknown as string[], { each: true, message: `permissions must each be one of: ${PERMISSIONS.join(', ')}` })
  permissions?: Permission[];
}
