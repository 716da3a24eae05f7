import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { CHANNELS } from '../../config/app-config';
import { MESSAGE_STATUSES } from '../entities/message.entity';

const STATUSES: string[] = [...MESSAGE_STATUSES];

/** Query of GET /api/v2/messages (the global ValidationPipe answers 400 VALIDATION_ERROR). */
export class ListMessagesQuery {
  @ApiPropertyOptional({ enum: STATUSES, description: 'Only messages with this status.' })
  @IsOptional()
  @IsIn(STATUSES)
  status?: string;

  @ApiPropertyOptional({ enum: CHANNELS, description: 'Only messages of this channel.' })
  @IsOptional()
  @IsIn(CHANNELS as unknown as string[])
  channel?: string;

  @ApiPropertyOptional({
    maxLength: 40,
    description: 'Only messages sent by this bulk job.',
    example: 'job_01jd0r8m6f3q9w2k4x7b5c8v1n',
  })
  @IsOptional()
  @IsString()
  @MaxLength(40)
  bulkJobId?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description:
      'Only messages changed (created, or moved to another status) at or after this time. With `order=updated`, poll with the time of your last poll, minus a few seconds, to reconcile.',
    example: '2026-11-22T10:00:00.000Z',
  })
  @IsOptional()
  @IsISO8601({ strict: true })
  updatedSince?: string;

  @ApiPropertyOptional({
    enum: ['created', 'updated'],
    default: 'created',
    description:
      '`created`: newest first (by createdAt, then id); `updated`: least recently changed first (by updatedAt, then id), for polling.',
  })
  @IsOptional()
  @IsIn(['created', 'updated'])
  order?: 'created' | 'updated';

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 50, description: 'Page size.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({
    maxLength: 500,
    description:
      '`nextCursor` of the previous page (opaque; VALIDATION_ERROR when altered, or when a cursor issued before 2026-11-29 names a message no longer kept).',
  })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  cursor?: string;
}
