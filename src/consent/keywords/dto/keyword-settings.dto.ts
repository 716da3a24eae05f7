import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import type { KeywordKind } from '../../../messaging/inbound/inbound-keywords';
import { KEYWORD_KINDS } from '../keyword-settings.types';

export class KeywordDto {
  @ApiProperty({ minLength: 1, maxLength: 40, example: 'BASTA' })
  @IsString({ message: 'word must be a string' })
  @MinLength(1, { message: 'word must not be empty' })
  @MaxLength(40, { message: 'word must be at most 40 characters' })
  word: string;

  @ApiProperty({ enum: KEYWORD_KINDS })
  @IsIn(KEYWORD_KINDS, { message: `kind must be one of: ${KEYWORD_KINDS.join(', ')}` })
  kind: KeywordKind;
}

export class ReplyTextsDto {
  @ApiProperty({ minLength: 1, maxLength: 320 })
  @IsString({ message: 'en must be a string' })
  @MinLength(1, { message: 'en must not be empty' })
  @MaxLength(320, { message: 'en must be at most 320 characters' })
  en: string;

  @ApiProperty({ minLength: 1, maxLength: 320 })
  @IsString({ message: 'ar must be a string' })
  @MinLength(1, { message: 'ar must not be empty' })
  @MaxLength(320, { message: 'ar must be at most 320 characters' })
  ar: string;
}

export class ConfirmationsDto {
  @ApiPropertyOptional({ description: 'Send a confirmation (a paid transactional SMS) on opt-out and opt-in keywords' })
  @IsOptional()
  @IsBoolean({ message: 'confirmations.enabled must be a boolean' })
  enabled?: boolean;

  @ApiPropertyOptional({ type: ReplyTextsDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => ReplyTextsDto)
  optOutText?: ReplyTextsDto;

  @ApiPropertyOptional({ type: ReplyTextsDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => ReplyTextsDto)
  optInText?: ReplyTextsDto;
}

/** PATCH /api/v2/account/keywords: what is given replaces that part; the rest stays. */
export class UpdateKeywordSettingsDto {
  @ApiPropertyOptional({ type: [KeywordDto], maxItems: 20, description: 'Replaces the account’s own keywords' })
  @IsOptional()
  @IsArray({ message: 'extraKeywords must be an array' })
  @ArrayMaxSize(20, { message: 'extraKeywords takes at most 20 keywords' })
  @ValidateNested({ each: true })
  @Type(() => KeywordDto)
  extraKeywords?: KeywordDto[];

  @ApiPropertyOptional({ type: ReplyTextsDto, description: 'The reply to HELP' })
  @IsOptional()
  @ValidateNested()
  @Type(() => ReplyTextsDto)
  helpText?: ReplyTextsDto;

  @ApiPropertyOptional({ type: ConfirmationsDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => ConfirmationsDto)
  confirmations?: ConfirmationsDto;
}

export class ConfirmationsView {
  @ApiProperty() enabled: boolean;
  @ApiProperty({ type: ReplyTextsDto }) optOutText: ReplyTextsDto;
  @ApiProperty({ type: ReplyTextsDto }) optInText: ReplyTextsDto;
}

export class KeywordSettingsView {
  @ApiProperty({ type: [KeywordDto] }) extraKeywords: KeywordDto[];
  @ApiProperty({ type: ReplyTextsDto }) helpText: ReplyTextsDto;
  @ApiProperty({ type: ConfirmationsView })
  confirmations: { enabled: boolean; optOutText: ReplyTextsDto; optInText: ReplyTextsDto };
  @ApiProperty({
    type: [KeywordDto],
    description: 'The keywords every account has (English and Arabic), for reference',
  })
  defaultKeywords: KeywordDto[];
}
