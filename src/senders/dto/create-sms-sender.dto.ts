import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsOptional, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';
import { SMS_SENDER_TYPES, type SmsSenderType } from '../entities/sms-sender.entity';

const HEADER_SAFE_SECRET = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

export class CreateSmsSenderDto {
  @ApiProperty({
    example: 'MyShop',
    description:
      'Alphanumeric sender id: 1 to 11 letters/digits, at least one letter. A promotional name ends in `-AD` and is at most 11 characters with the suffix (e.g. `MyShop-AD`); the suffix is reserved for promotional names.',
  })
  @IsString()
  @Matches(/^(?=.*[A-Za-z])(?:[A-Za-z0-9]{1,11}|[A-Za-z0-9]{1,8}-AD)$/, {
    message:
      'name must be 1 to 11 letters or digits with at least one letter; a promotional name ends in -AD and is at most 11 characters with the suffix',
  })
  name: string;

  @ApiPropertyOptional({
    enum: SMS_SENDER_TYPES,
    default: 'transactional',
    description:
      'promotional: registered for marketing (the name ends in `-AD`); it sends marketing messages only, and marketing SMS go out only from a promotional sender.',
  })
  @IsOptional()
  @IsIn(SMS_SENDER_TYPES, { message: 'type must be one of: transactional, promotional' })
  type?: SmsSenderType;

  @ApiPropertyOptional({ example: 'https://example.com/hooks/sms-sender' })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  webhookUrl?: string;

  @ApiPropertyOptional({
    description:
      'Required with webhookUrl; sent as Bearer credential; never returned. Printable ASCII without leading or trailing spaces (it travels in an HTTP header).',
  })
  @ValidateIf((o: CreateSmsSenderDto) => o.webhookUrl != null || o.webhookSecret != null)
  @IsString({ message: 'webhookSecret is required when webhookUrl is present' })
  @IsNotEmpty({ message: 'webhookSecret is required when webhookUrl is present' })
  @MaxLength(512)
  // Sent as `Authorization: Bearer <secret>`: a control or non-ASCII character (or an edge space,
  // which HTTP clients trim) would make every later delivery fail, so refuse it here.
  @Matches(HEADER_SAFE_SECRET, {
    message: 'webhookSecret must be printable ASCII without control characters or leading/trailing spaces',
  })
  webhookSecret?: string;
}
