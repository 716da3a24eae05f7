import { Type } from 'class-transformer';
import { IsInt, IsNotEmpty, IsObject, IsOptional, IsString, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';

export class VerificationTemplateDto {
  /** An approved/active template of the account (or a default one) with exactly one variable: the code. */
  @IsString() @IsNotEmpty() @MaxLength(40)
  id: string;
}

export class SendVerificationDto {
  /** Phone number (any format libphonenumber understands; E.164 recommended), or email address. */
  @IsString() @IsNotEmpty() @MaxLength(320)
  to: string;

  /** `local_sms`, `chatapp` or `email`. */
  @IsString() @IsNotEmpty() @MaxLength(20)
  channel: string;

  /** Digits in the code, 4 to 8 (default 6). */
  @IsOptional() @IsInt() @Min(4) @Max(8)
  codeLength?: number;

  /** Minutes the code stays valid, 1 to 90 (default 10). */
  @IsOptional() @IsInt() @Min(1) @Max(90)
  expiresInMinutes?: number;

  /** Send through this template with the code as variable 1 instead of the built-in text. */
  @IsOptional() @IsObject() @ValidateNested() @Type(() => VerificationTemplateDto)
  template?: VerificationTemplateDto;
}

export class CheckVerificationDto {
  @IsString() @IsNotEmpty() @MaxLength(40)
  verificationId: string;

  /** The digits the user typed, as a string (leading zeros matter). */
  @IsString() @Matches(/^\d{4,8}$/, { message: 'code must be a string of 4 to 8 digits' })
  code: string;
}
