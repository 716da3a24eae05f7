import { ApiLivemode } from '../../../common/openapi';
import { CursorPageQuery } from '../../../common/dto/cursor-page.query';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsOptional } from 'class-validator';
import { AUDIT_EVENT_TYPES } from '../../../common/audit/audit-trail';
import type { AuditEventView } from '../audit-events.service';

export class ListAuditEventsQuery extends CursorPageQuery {
  @ApiPropertyOptional({ enum: AUDIT_EVENT_TYPES, description: 'Only events of this type.' })
  @IsOptional()
  @IsIn(AUDIT_EVENT_TYPES, { message: `type must be one of ${AUDIT_EVENT_TYPES.join(', ')}` })
  type?: string;

  @ApiPropertyOptional({ type: 'string', format: 'date-time', description: 'Events at or after this time.' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'from must be an ISO 8601 date-time' })
  from?: string;

  @ApiPropertyOptional({ type: 'string', format: 'date-time', description: 'Events before this time.' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'to must be an ISO 8601 date-time' })
  to?: string;
}

export class AuditEvent implements AuditEventView {
  @ApiProperty({ example: 'aud_01m7y90kewyw5pyx06wnaqb2' })
  id: string;

  @ApiProperty({ enum: AUDIT_EVENT_TYPES, example: 'api_key.created' })
  type: string;

  @ApiProperty({
    description: 'The API key id that made the change, `operator` (admin API) or `system` (a background task).',
    example: 'key_01m7y90kewyw5pyx06wnaqb2',
  })
  actor: string;

  @ApiProperty({ type: 'string', nullable: true, description: 'X-Request-Id of the request.', example: null })
  requestId: string | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'What changed (a key, endpoint, erasure id...).' })
  target: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: '`before`/`after` of the fields that changed, or a summary. Never a secret.',
    example: { name: 'CI key', role: 'member', permissions: ['messages:read'] },
  })
  changes: AuditEventView['changes'];

  @ApiProperty({ format: 'date-time', example: '2026-11-28T18:00:00.000Z' })
  createdAt: string;

  @ApiLivemode()
  livemode: boolean;
}

export class AuditEventPage {
  @ApiProperty({ type: [AuditEvent] })
  events: AuditEvent[];

  @ApiProperty({ type: 'string', nullable: true, example: null })
  nextCursor: string | null;

  @ApiProperty({ example: false })
  hasMore: boolean;
}
