import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import type { DeliveryStatus } from '../entities/webhook-delivery.entity';

export class PutWebhookDto {
  @ApiProperty({ example: 'https://example.com/hooks/chatapp-web' })
  @IsString() @MaxLength(2048)
  url: string;
}

export class ListDeliveriesQuery {
  @ApiPropertyOptional({ enum: ['pending', 'delivered', 'failed'] })
  @IsOptional() @IsIn(['pending', 'delivered', 'failed'], { message: 'status must be one of: pending, delivered, failed' })
  status?: DeliveryStatus;

  @ApiPropertyOptional()
  @IsOptional() @IsString() @MaxLength(500)
  cursor?: string;

  @ApiPropertyOptional({ description: '1 to 100, default 20' })
  @IsOptional() @Matches(/^(100|[1-9][0-9]?)$/, { message: 'limit must be an integer from 1 to 100' })
  limit?: string;
}
