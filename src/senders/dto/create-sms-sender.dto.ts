import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';

const HEADER_SAFE_SECRET = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

export class CreateSmsSenderDto {
  @ApiProperty({
    example: 'MyShop',
    description: 'Alphanumeric sender id: 1 to 11 letters/digits, at least one letter.',
  })
  @IsString()
  @Matches(/^(?=.*[A-Za-z])[A-Za-z0-9]{1,11}$/, {
    message: 'name must be 1 to 11 letters or digits, with at least one letter',
  })
  name: string;

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
