import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import type { ChatKind, WebSessionKind, WebSessionProviderName, WebSessionStatus } from '../web-session.types';

export class ChatInputDto {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  chatId: string;

  @ApiProperty({ enum: ['direct', 'group'] })
  @IsIn(['direct', 'group'])
  kind: ChatKind;

  @ApiProperty({ maxLength: 300 })
  @IsString()
  @MaxLength(300)
  title: string;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 32 })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  phoneNumber?: string | null;
}

export class CreateWebSessionDto {
  /** The spec's `accountId` (web-session name or bot id); unique within the account. */
  @ApiProperty({
    pattern: '^[A-Za-z0-9._:@-]{1,100}$',
    description: "The spec's accountId of a conversation context (web-session name or bot id)",
  })
  @IsString()
  @Matches(/^[A-Za-z0-9._:@-]{1,100}$/, { message: 'name must be 1 to 100 letters, digits or . _ : @ -' })
  name: string;

  @ApiProperty({ enum: ['ready', 'starting'] })
  @IsIn(['ready', 'starting'])
  status: 'ready' | 'starting';

  /** `web` (default) or `bot` for a messaging-bot id. */
  @ApiPropertyOptional({ enum: ['web', 'bot'], default: 'web' })
  @IsOptional()
  @IsIn(['web', 'bot'])
  kind?: WebSessionKind;

  /** Defaults to CHATAPP_WEB_SESSION_PROVIDER (sandbox). */
  @ApiPropertyOptional({ enum: ['sandbox', 'waha'], description: 'Defaults to CHATAPP_WEB_SESSION_PROVIDER' })
  @IsOptional()
  @IsIn(['sandbox', 'waha'])
  provider?: WebSessionProviderName;

  /** Session name at the provider (WAHA); defaults to `name`. */
  @ApiPropertyOptional({
    pattern: '^[A-Za-z0-9._-]{1,100}$',
    description: 'Session name at the provider (WAHA); defaults to name',
  })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9._-]{1,100}$/, { message: 'providerSession must be 1 to 100 letters, digits or . _ -' })
  providerSession?: string;

  @ApiPropertyOptional({
    type: [ChatInputDto],
    maxItems: 10_000,
    description: 'Sandbox sessions only; 120 generated chats when omitted',
  })
  // IsObject: ValidateNested alone lets an array element (`[[]]`) through unchecked.
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10_000)
  @IsObject({ each: true, message: 'chats must be a list of objects' })
  @ValidateNested({ each: true })
  @Type(() => ChatInputDto)
  chats?: ChatInputDto[];
}

export class UpdateWebSessionDto {
  @ApiProperty({ enum: ['ready', 'starting', 'stopped', 'failed'] })
  @IsIn(['ready', 'starting', 'stopped', 'failed'])
  status: WebSessionStatus;
}
