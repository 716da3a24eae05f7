import { Global, Module } from '@nestjs/common';
import { VERIFICATION_EVENTS } from '../messaging/verification-events';
import { VerificationActivity } from './verification-activity';
import { VerificationDailyCounts } from './verification-daily-counts';
import { VerificationDailyCountsRepository } from './verification-daily-counts.repository';
import { VerificationStatsController } from './verification-stats.controller';

/**
 * The fraud guard (issue 31): geo permissions (the destination countries an account may send to)
 * and verification pumping detection. Messaging and verification reach it only through the ports
 * they declare, so this module is global and exports those tokens.
 */
@Global()
@Module({
  controllers: [VerificationStatsController],
  providers: [
    VerificationDailyCountsRepository,
    VerificationDailyCounts,
    VerificationActivity,
    { provide: VERIFICATION_EVENTS, useExisting: VerificationActivity },
  ],
  exports: [VERIFICATION_EVENTS],
})
export class FraudModule {}
