import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  MaxLength,
  Validate,
  ValidatorConstraint,
  ValidatorConstraintInterface,
} from 'class-validator';
import { EVENT_TYPES } from '../../messaging/events/event-sink';
import { isValidEventFilter } from '../event-filter';

@ValidatorConstraint({ name: 'eventFilters' })
class EventFilters implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return Array.isArray(value) && value.every((v) => typeof v === 'string' && isValidEventFilter(v));
  }

  defaultMessage(): string {
    return `events must each be an event type (${EVENT_TYPES.join(', ')}), a prefix of them such as message.*, or *`;
  }
}

const URL_DOC =
  'An https URL without credentials whose host resolves to public addresses only (http and private hosts only with WEBHOOK_ALLOW_INSECURE); 400 VALIDATION_ERROR otherwise.';
const EVENTS_DOC = `Event types (${EVENT_TYPES.join(', ')}), prefixes such as \`message.*\`, or \`*\` for all.`;

export class CreateEventEndpointDto {
  @ApiProperty({ maxLength: 2048, format: 'uri', example: 'https://example.com/hooks/events', description: URL_DOC })
  @IsString()
  @MaxLength(2048)
  url: string;

  @ApiProperty({
    type: 'string',
    isArray: true,
    minItems: 1,
    maxItems: 50,
    example: ['message.*', 'bulk_job.completed'],
    description: EVENTS_DOC,
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @Validate(EventFilters)
  events: string[];

  @ApiPropertyOptional({ type: 'string', maxLength: 500, example: 'Order system' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  description?: string;
}

export class UpdateEventEndpointDto {
  @ApiPropertyOptional({ maxLength: 2048, format: 'uri', description: URL_DOC })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  url?: string;

  @ApiPropertyOptional({ type: 'string', isArray: true, minItems: 1, maxItems: 50, description: EVENTS_DOC })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @Validate(EventFilters)
  events?: string[];

  @ApiPropertyOptional({ type: 'string', maxLength: 500, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  description?: string;

  @ApiPropertyOptional({
    type: 'string',
    enum: ['enabled', 'disabled'],
    description: 'Enabling a disabled endpoint clears its failure count and reason.',
  })
  @IsOptional()
  @IsIn(['enabled', 'disabled'], { message: 'status must be one of: enabled, disabled' })
  status?: 'enabled' | 'disabled';
}
