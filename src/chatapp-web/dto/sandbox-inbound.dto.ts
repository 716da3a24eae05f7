import { Type } from 'class-transformer';
import { IsBoolean, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { REMOTE_ID_MAX_LENGTH } from '../inbound/inbound.types';

export class InboundFromDto {
  @IsString() @IsNotEmpty() @MaxLength(200)
  jid: string;

  @IsOptional() @IsString() @MaxLength(32)
  phone?: string;

  @IsString() @MaxLength(200)
  displayName: string;
}

export class InboundMediaDto {
  @IsString() @IsNotEmpty() @MaxLength(40)
  mediaType: string;

  @IsString() @IsNotEmpty() @MaxLength(200)
  mimetype: string;

  @IsOptional() @IsString() @MaxLength(300)
  fileName?: string;
}

/** Sandbox stand-in for a provider's "message received" notification. */
export class SandboxInboundDto {
  @IsObject() @ValidateNested() @Type(() => InboundFromDto)
  from: InboundFromDto;

  @IsString() @MaxLength(65_536)
  text: string;

  @IsOptional() @IsBoolean()
  isGroup?: boolean;

  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(REMOTE_ID_MAX_LENGTH)
  remoteChatId?: string;

  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(REMOTE_ID_MAX_LENGTH)
  remoteMessageId?: string;

  @IsOptional() @IsBoolean()
  fromMe?: boolean;

  @IsOptional() @IsBoolean()
  historySync?: boolean;

  @IsOptional() @IsObject() @ValidateNested() @Type(() => InboundMediaDto)
  media?: InboundMediaDto;
}
