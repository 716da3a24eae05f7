import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';

export class ReviewSmsSenderDto {
  @ApiPropertyOptional({ description: 'Sent as data.reason in the sender event.' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  reason?: string;
}

export class AdminListSendersQuery {
  @ApiPropertyOptional({ enum: ['pending', 'approved', 'rejected'] })
  @IsOptional()
  @IsIn(['pending', 'approved', 'rejected'], { message: 'status must be one of: pending, approved, rejected' })
  status?: 'pending' | 'approved' | 'rejected';
}
