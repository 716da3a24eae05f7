import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import type { DeliveryStatus } from '../entities/webhook-delivery.entity';

export class PutWebhookDto {
  @ApiProperty({
    maxLength: 2048,
    format: 'uri',
    example: 'https://example.com/hooks/chatapp-web',
    description:
      'An https URL without credentials whose host resolves to public addresses only (http and private hosts only with WEBHOOK_ALLOW_INSECURE); 400 VALIDATION_ERROR otherwise.',
  })
  @IsString()
  @MaxLength(2048)
  url: string;
}

const LIMIT_MESSAGE = { message: 'limit must be an integer from 1 to 100' };
// A query value is a string (an array when repeated): only plain decimal digits become a number,
// anything else fails IsInt with the message above.
const toInteger = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^\d{1,4}$/.test(value) ? Number(value) : value;

export class ListDeliveriesQuery {
  @ApiPropertyOptional({ type: 'string', enum: ['pending', 'delivered', 'failed'] })
  @IsOptional()
  @IsIn(['pending', 'delivered', 'failed'], { message: 'status must be one of: pending, delivered, failed' })
  status?: DeliveryStatus;

  @ApiPropertyOptional({ type: 'string', maxLength: 40, description: 'Only deliveries to this event endpoint.' })
  @IsOptional()
  @IsString()
  @MaxLength(40)
  endpointId?: string;

  @ApiPropertyOptional({
    type: 'string',
    maxLength: 100,
    example: 'message.delivered',
    description: 'Only deliveries of this event type (exact name).',
  })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  event?: string;

  @ApiPropertyOptional({
    type: 'string',
    maxLength: 500,
    description: 'nextCursor of the previous page (same filters)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  cursor?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Transform(toInteger)
  @IsInt(LIMIT_MESSAGE)
  @Min(1, LIMIT_MESSAGE)
  @Max(100, LIMIT_MESSAGE)
  limit?: number;
}
