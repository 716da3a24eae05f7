import { CursorPageQuery } from '../../../common/dto/cursor-page.query';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

/** GET /api/v2/sms/inbound: newest first. */
export class ListInboundSmsQuery extends CursorPageQuery {
  @ApiPropertyOptional({
    description: 'Only SMS sent to this sender name of the account (case ignored).',
    maxLength: 11,
  })
  @IsOptional()
  @IsString({ message: 'sender must be a string' })
  @MaxLength(11, { message: 'sender must be at most 11 characters' })
  sender?: string;

  @ApiPropertyOptional({
    description: 'Only SMS from this number (E.164, e.g. +966501234567).',
    example: '+966501234567',
  })
  @IsOptional()
  @Matches(/^\+?[0-9A-Za-z]{1,31}$/, { message: 'from must be a phone number in E.164 format' })
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Only SMS received at or after this time.' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'since must be an ISO 8601 date-time' })
  since?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Only SMS received before this time.' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'until must be an ISO 8601 date-time' })
  until?: string;
}
