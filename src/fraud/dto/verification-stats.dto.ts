import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { toInteger } from '../../common/query-transforms';
import type { DailyVerificationCount } from '../verification-daily-counts';

export const STATS_MAX_DAYS = 90;
const DAYS_MESSAGE = `days must be an integer from 1 to ${STATS_MAX_DAYS}`;

export class VerificationStatsQuery {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: STATS_MAX_DAYS,
    default: 14,
    description: 'How many UTC days, today included.',
  })
  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: DAYS_MESSAGE })
  @Min(1, { message: DAYS_MESSAGE })
  @Max(STATS_MAX_DAYS, { message: DAYS_MESSAGE })
  days?: number;
}

export class VerificationDay implements DailyVerificationCount {
  @ApiProperty({ format: 'date', description: 'The UTC day, YYYY-MM-DD.', example: '2026-11-22' })
  date: string;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Codes sent that day.', example: 40 })
  sent: number;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Codes sent that day that were verified (on that day or later).',
    example: 31,
  })
  verified: number;
}

export class VerificationStats {
  @ApiProperty({
    type: () => VerificationDay,
    isArray: true,
    description: 'One entry per UTC day, oldest first, today last; days without codes are zeros.',
  })
  days: VerificationDay[];
}

export const VERIFICATION_STATS_EXAMPLE: { success: true; data: VerificationStats } = {
  success: true,
  data: {
    days: [
      { date: '2026-11-20', sent: 0, verified: 0 },
      { date: '2026-11-21', sent: 12, verified: 10 },
      { date: '2026-11-22', sent: 40, verified: 31 },
    ],
  },
};
