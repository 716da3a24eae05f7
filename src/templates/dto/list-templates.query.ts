import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import {
  TEMPLATE_CATEGORIES,
  TEMPLATE_PROVIDERS,
  TEMPLATE_STATUSES,
  TemplateCategory,
  TemplateProvider,
  TemplateStatus,
} from '../template.types';

/** GET /api/v2/templates: newest first, own and default templates. */
export class ListTemplatesQuery {
  @ApiPropertyOptional({ enum: TEMPLATE_CATEGORIES })
  @IsOptional()
  @IsIn(TEMPLATE_CATEGORIES, { message: `category must be one of: ${TEMPLATE_CATEGORIES.join(', ')}` })
  category?: TemplateCategory;

  @ApiPropertyOptional({ enum: TEMPLATE_STATUSES })
  @IsOptional()
  @IsIn(TEMPLATE_STATUSES, { message: `status must be one of: ${TEMPLATE_STATUSES.join(', ')}` })
  status?: TemplateStatus;

  @ApiPropertyOptional({ enum: TEMPLATE_PROVIDERS })
  @IsOptional()
  @IsIn(TEMPLATE_PROVIDERS, { message: `provider must be one of: ${TEMPLATE_PROVIDERS.join(', ')}` })
  provider?: TemplateProvider;

  @ApiPropertyOptional({ description: 'Name prefix' })
  @IsOptional()
  @IsString({ message: 'name must be a string' })
  @MaxLength(200, { message: 'name must be at most 200 characters' })
  name?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 500, default: 50 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be an integer from 1 to 500' })
  @Min(1, { message: 'limit must be an integer from 1 to 500' })
  @Max(500, { message: 'limit must be an integer from 1 to 500' })
  limit?: number;

  @ApiPropertyOptional({ maxLength: 1000, description: 'nextCursor of the previous page' })
  @IsOptional()
  @IsString({ message: 'cursor must be a string' })
  @MaxLength(1000, { message: 'cursor is invalid' })
  cursor?: string;
}
