import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { emptyAsAbsent, toInteger } from '../../common/query-transforms';
import { ROW_STATUS_FILTERS } from '../bulk-job.view';

export class ListBulkJobsQuery {
  @ApiPropertyOptional({ type: 'string', maxLength: 500, description: 'nextCursor of the previous page' })
  @IsOptional()
  @IsString({ message: 'cursor is invalid' })
  @MaxLength(500, { message: 'cursor is invalid' })
  cursor?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'limit must be an integer from 1 to 100' })
  @Min(1, { message: 'limit must be an integer from 1 to 100' })
  @Max(100, { message: 'limit must be an integer from 1 to 100' })
  limit?: number;
}

export class ListBulkRowsQuery {
  @ApiPropertyOptional({ type: 'string', enum: ROW_STATUS_FILTERS, description: '`pending` includes rows being sent' })
  @IsOptional()
  @Transform(emptyAsAbsent)
  @IsIn(ROW_STATUS_FILTERS, { message: `status must be one of ${ROW_STATUS_FILTERS.join(', ')}` })
  status?: string;

  @ApiPropertyOptional({
    type: 'string',
    maxLength: 500,
    description: 'nextCursor of the previous page (same status filter)',
  })
  @IsOptional()
  @IsString({ message: 'cursor is invalid' })
  @MaxLength(500, { message: 'cursor is invalid' })
  cursor?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 1000, default: 100 })
  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'limit must be an integer from 1 to 1000' })
  @Min(1, { message: 'limit must be an integer from 1 to 1000' })
  @Max(1000, { message: 'limit must be an integer from 1 to 1000' })
  limit?: number;
}
