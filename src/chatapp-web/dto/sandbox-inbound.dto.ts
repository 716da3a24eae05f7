import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { REMOTE_ID_MAX_LENGTH } from '../inbound/inbound.types';

export class InboundFromDto {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  jid: string;

  @ApiPropertyOptional({ maxLength: 32 })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  phone?: string;

  @ApiProperty({ maxLength: 200 })
  @IsString()
  @MaxLength(200)
  displayName: string;
}

export class InboundMediaDto {
  @ApiProperty({ minLength: 1, maxLength: 40 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(40)
  mediaType: string;

  @ApiProperty({ minLength: 1, maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  mimetype: string;

  @ApiPropertyOptional({ maxLength: 300 })
  @IsOptional()
  @IsString()
  @MaxLength(300)
  fileName?: string;
}

/** Sandbox stand-in for a provider's "message received" notification. */
export class SandboxInboundDto {
  @ApiProperty({ type: InboundFromDto })
  @IsObject()
  @ValidateNested()
  @Type(() => InboundFromDto)
  from: InboundFromDto;

  @ApiProperty({ maxLength: 65_536 })
  @IsString()
  @MaxLength(65_536)
  text: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  isGroup?: boolean;

  @ApiPropertyOptional({ minLength: 1, maxLength: REMOTE_ID_MAX_LENGTH })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(REMOTE_ID_MAX_LENGTH)
  remoteChatId?: string;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: REMOTE_ID_MAX_LENGTH,
    description: 'Provider message id; a repeat is dropped as a duplicate',
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(REMOTE_ID_MAX_LENGTH)
  remoteMessageId?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  fromMe?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  historySync?: boolean;

  @ApiPropertyOptional({ type: InboundMediaDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => InboundMediaDto)
  media?: InboundMediaDto;
}
