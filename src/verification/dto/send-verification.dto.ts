import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';

export class VerificationTemplateDto {
  @ApiProperty({
    minLength: 1,
    maxLength: 40,
    description: 'A usable template of the account (or a default one) with exactly one variable: the code',
    example: 'tpl_01m7y90kewyw5pyx06wnaqb2',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(40)
  id: string;
}

export class SendVerificationDto {
  @ApiProperty({
    minLength: 1,
    maxLength: 320,
    description: 'local_sms / chatapp: a phone number (E.164, or national for DEFAULT_REGION); email: an address',
    example: '+966501234567',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(320)
  to: string;

  @ApiProperty({
    enum: ['local_sms', 'chatapp', 'email'],
    description: 'Another value: 400 INVALID_CHANNEL.',
    example: 'local_sms',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(20)
  channel: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 4, maximum: 8, default: 6, description: 'Digits in the code' })
  @IsOptional()
  @IsInt()
  @Min(4)
  @Max(8)
  codeLength?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 90,
    default: 10,
    description: 'Minutes the code stays valid',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(90)
  expiresInMinutes?: number;

  @ApiPropertyOptional({
    type: VerificationTemplateDto,
    description: 'Send through this template, the code as variable 1, instead of the built-in text',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => VerificationTemplateDto)
  template?: VerificationTemplateDto;
}

export class CheckVerificationDto {
  @ApiProperty({
    minLength: 1,
    maxLength: 40,
    description: 'From the send response.',
    example: 'ver_01m7y90kewyw5pyx06wnaqb2',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(40)
  verificationId: string;

  @ApiProperty({
    description: 'The digits the user typed, as a string (leading zeros matter)',
    example: '004211',
    pattern: '^\\d{4,8}$',
  })
  @IsString()
  @Matches(/^\d{4,8}$/, { message: 'code must be a string of 4 to 8 digits' })
  code: string;
}
