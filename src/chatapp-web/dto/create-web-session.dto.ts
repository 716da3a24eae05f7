import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsNotEmpty, IsObject, IsOptional, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import type { ChatKind, WebSessionKind, WebSessionProviderName, WebSessionStatus } from '../web-session.types';

export class ChatInputDto {
  @IsString() @IsNotEmpty() @MaxLength(200)
  chatId: string;

  @IsIn(['direct', 'group'])
  kind: ChatKind;

  @IsString() @MaxLength(300)
  title: string;

  @IsOptional() @IsString() @MaxLength(32)
  phoneNumber?: string | null;
}

export class CreateWebSessionDto {
  /** The spec's `accountId` (web-session name or bot id); unique within the account. */
  @IsString() @Matches(/^[A-Za-z0-9._:@-]{1,100}$/, { message: 'name must be 1 to 100 letters, digits or . _ : @ -' })
  name: string;

  @IsIn(['ready', 'starting'])
  status: 'ready' | 'starting';

  /** `web` (default) or `bot` for a messaging-bot id. */
  @IsOptional() @IsIn(['web', 'bot'])
  kind?: WebSessionKind;

  /** Defaults to CHATAPP_WEB_SESSION_PROVIDER (sandbox). */
  @IsOptional() @IsIn(['sandbox', 'waha'])
  provider?: WebSessionProviderName;

  /** Session name at the provider (WAHA); defaults to `name`. */
  @IsOptional() @IsString() @Matches(/^[A-Za-z0-9._-]{1,100}$/, { message: 'providerSession must be 1 to 100 letters, digits or . _ -' })
  providerSession?: string;

  // IsObject: ValidateNested alone lets an array element (`[[]]`) through unchecked.
  @IsOptional() @IsArray() @ArrayMaxSize(10_000) @IsObject({ each: true, message: 'chats must be a list of objects' }) @ValidateNested({ each: true }) @Type(() => ChatInputDto)
  chats?: ChatInputDto[];
}

export class UpdateWebSessionDto {
  @IsIn(['ready', 'starting', 'stopped', 'failed'])
  status: WebSessionStatus;
}
