import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';

export class CreateSmsSenderDto {
  @ApiProperty({ example: 'MyShop', description: 'Alphanumeric sender id: 1 to 11 letters/digits, at least one letter.' })
  @IsString() @Matches(/^(?=.*[A-Za-z])[A-Za-z0-9]{1,11}$/, { message: 'name must be 1 to 11 letters or digits, with at least one letter' })
  name: string;

  @ApiPropertyOptional({ example: 'https://example.com/hooks/sms-sender' })
  @IsOptional() @IsString() @MaxLength(2048)
  webhookUrl?: string;

  @ApiPropertyOptional({ description: 'Required with webhookUrl; sent as Bearer credential; never returned.' })
  @ValidateIf((o: CreateSmsSenderDto) => o.webhookUrl != null || o.webhookSecret != null)
  @IsString({ message: 'webhookSecret is required when webhookUrl is present' })
  @IsNotEmpty({ message: 'webhookSecret is required when webhookUrl is present' })
  @MaxLength(512)
  webhookSecret?: string;
}
