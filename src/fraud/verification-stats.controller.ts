import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { RequirePermissions } from '../auth/decorators';
import { ApiErrors, ApiSuccess } from '../common/openapi';
import { VERIFICATION_STATS_EXAMPLE, VerificationStats, VerificationStatsQuery } from './dto/verification-stats.dto';
import { VerificationDailyCounts } from './verification-daily-counts';

// Under the verification paths (what an integrator looks for), served by the fraud module that owns the counts.
@ApiTags('verification')
@Controller('api/v2/verification')
export class VerificationStatsController {
  constructor(private readonly daily: VerificationDailyCounts) {}

  @Get('stats')
  @RequirePermissions('messages:read')
  @ApiOperation({
    operationId: 'getVerificationStats',
    summary: 'Codes sent and verified per day',
    description:
      'One entry per UTC day for the last `days` days (default 14, at most 90), oldest first, today last. A verified ' +
      'code counts on the day it was sent, so `verified / sent` is that day’s conversion. Kept after verifications are ' +
      'purged. Needs `messages:read`.',
  })
  @ApiSuccess(200, VerificationStats, { description: 'The daily counts.', example: VERIFICATION_STATS_EXAMPLE })
  @ApiErrors('VALIDATION_ERROR')
  async stats(
    @CurrentAuth() auth: AuthContext,
    @Query() q: VerificationStatsQuery,
  ): Promise<{ success: true; data: VerificationStats }> {
    return { success: true, data: { days: await this.daily.lastDays(auth.accountId, q.days ?? 14) } };
  }
}
