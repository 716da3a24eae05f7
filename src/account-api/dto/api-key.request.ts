import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { Permission, PERMISSIONS } from '../../accounts/permissions';

/** POST /api/v2/api-keys (the global ValidationPipe answers 400 VALIDATION_ERROR naming the field). */
export class CreateApiKeyRequest {
  @ApiProperty({
    minLength: 1,
    maxLength: 100,
    description: 'How the owner recognises the key; trimmed.',
    example: 'Billing server',
  })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @Length(1, 100, { message: 'name must be 1 to 100 characters (leading and trailing spaces are trimmed)' })
  // The name is shown in the console and in logs: no line breaks or other control characters.
  @Matches(/^[^\p{Cc}]*$/u, { message: 'name must not contain control characters' })
  name: string;

  @ApiProperty({
    type: 'array',
    minItems: 1,
    uniqueItems: true,
    items: { type: 'string', enum: [...PERMISSIONS] },
    description: 'What the member key may do; at least one, each once.',
    example: ['messages:create', 'messages:read'],
  })
  @IsArray()
  @ArrayNotEmpty({ message: 'permissions must list at least one permission' })
  @ArrayUnique({ message: 'permissions must not list a permission twice' })
  @IsIn(PERMISSIONS as unknown as string[], {
    each: true,
    message: `permissions must each be one of: ${PERMISSIONS.join(', ')}`,
  })
  permissions: Permission[];
}

/** Query of GET /api/v2/api-keys. */
export class ListApiKeysQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 50, description: 'Page size.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({
    maxLength: 500,
    description: '`nextCursor` of the previous page (opaque; VALIDATION_ERROR when altered).',
  })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  cursor?: string;
}
