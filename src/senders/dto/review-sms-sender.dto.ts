import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';

export class ReviewSmsSenderDto {
  @ApiPropertyOptional({ description: 'Sent as data.reason in the sender event.' })
  @IsOptional() @IsString() @MaxLength(500)
  reason?: string;
}
