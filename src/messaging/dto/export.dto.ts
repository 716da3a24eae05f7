import { ApiProperty } from '@nestjs/swagger';
import { IsISO8601 } from 'class-validator';

export class ExportMessagesQuery {
  @ApiProperty({
    format: 'date-time',
    description: 'Messages created at or after this time (ISO 8601).',
    example: '2026-11-01T00:00:00Z',
  })
  @IsISO8601({ strict: true }, { message: 'from must be an ISO 8601 date-time' })
  from: string;

  @ApiProperty({
    format: 'date-time',
    description: 'Messages created before this time (ISO 8601); after `from`.',
    example: '2026-12-01T00:00:00Z',
  })
  @IsISO8601({ strict: true }, { message: 'to must be an ISO 8601 date-time' })
  to: string;
}
