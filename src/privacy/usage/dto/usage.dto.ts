import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { emptyAsAbsent } from '../../../common/query-transforms';
import { ApiLivemode } from '../../../common/openapi';

const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;

export class UsageQuery {
  @ApiPropertyOptional({
    format: 'date',
    description: 'First UTC day (YYYY-MM-DD), included. Default: 29 days before `to`.',
    example: '2026-11-01',
  })
  @IsOptional()
  @Transform(emptyAsAbsent)
  @Matches(DAY_RE, { message: 'from must be a date YYYY-MM-DD' })
  from?: string;

  @ApiPropertyOptional({
    format: 'date',
    description: 'Last UTC day (YYYY-MM-DD), included. Default: today.',
    example: '2026-11-30',
  })
  @IsOptional()
  @Transform(emptyAsAbsent)
  @Matches(DAY_RE, { message: 'to must be a date YYYY-MM-DD' })
  to?: string;

  @ApiPropertyOptional({ enum: ['day', 'month'], default: 'day' })
  @IsOptional()
  @Transform(emptyAsAbsent)
  @IsIn(['day', 'month'], { message: 'granularity must be day or month' })
  granularity?: 'day' | 'month';
}

export class UsageAmounts {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Messages paid (a refunded failure counts nothing).' })
  messages: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Billable units: SMS parts (one per other message).' })
  parts: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Minor units of `currency` taken from the wallet.' })
  cost: number;
}

export class UsageBySource {
  @ApiProperty({ type: () => UsageAmounts, description: 'Paid with free messages (cost 0).' }) free: UsageAmounts;
  @ApiProperty({ type: () => UsageAmounts, description: 'Paid from the plan quota (cost 0).' }) quota: UsageAmounts;
  @ApiProperty({ type: () => UsageAmounts, description: 'Paid from the wallet.' }) wallet: UsageAmounts;
}

export class UsageChannel extends UsageAmounts {
  @ApiProperty({ example: 'local_sms' }) channel: string;
}

export class UsagePeriod extends UsageAmounts {
  @ApiProperty({ description: 'The UTC day (YYYY-MM-DD) or month (YYYY-MM).', example: '2026-11-21' })
  period: string;
  @ApiProperty({ type: () => UsageBySource }) bySource: UsageBySource;
  @ApiProperty({ type: () => UsageChannel, isArray: true, description: 'Channels with usage, by name.' })
  byChannel: UsageChannel[];
}

export class AccountUsage {
  @ApiProperty({ format: 'date', example: '2026-11-20' }) from: string;
  @ApiProperty({ format: 'date', example: '2026-11-21' }) to: string;
  @ApiProperty({ enum: ['day', 'month'] }) granularity: 'day' | 'month';
  @ApiProperty({ example: 'SAR' }) currency: string;
  @ApiProperty({
    type: () => UsagePeriod,
    isArray: true,
    description: 'Every day (or month) of the range, oldest first; periods without messages are zeros.',
  })
  periods: UsagePeriod[];
  @ApiProperty({ type: () => UsageAmounts }) totals: UsageAmounts;
  @ApiLivemode() livemode: boolean;
}

const zero = { messages: 0, parts: 0, cost: 0 };
export const USAGE_EXAMPLE: { success: true; data: AccountUsage } = {
  success: true,
  data: {
    from: '2026-11-20',
    to: '2026-11-21',
    granularity: 'day',
    currency: 'SAR',
    periods: [
      { period: '2026-11-20', ...zero, bySource: { free: zero, quota: zero, wallet: zero }, byChannel: [] },
      {
        period: '2026-11-21',
        messages: 12,
        parts: 14,
        cost: 250,
        bySource: {
          free: { messages: 2, parts: 2, cost: 0 },
          quota: zero,
          wallet: { messages: 10, parts: 12, cost: 250 },
        },
        byChannel: [{ channel: 'local_sms', messages: 12, parts: 14, cost: 250 }],
      },
    ],
    totals: { messages: 12, parts: 14, cost: 250 },
    livemode: true,
  },
};
