import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { toInteger } from '../query-transforms';

/** The cursor and page size every cursor-paged list takes (a list's query extends it with its filters). */
export class CursorPageQuery {
  @ApiPropertyOptional({ type: 'string', maxLength: 500, description: 'nextCursor of the previous page' })
  @IsOptional()
  @IsString({ message: 'cursor is invalid' })
  @MaxLength(500, { message: 'cursor is invalid' })
  cursor?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 50 })
  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'limit must be an integer from 1 to 100' })
  @Min(1, { message: 'limit must be an integer from 1 to 100' })
  @Max(100, { message: 'limit must be an integer from 1 to 100' })
  limit?: number;
}
