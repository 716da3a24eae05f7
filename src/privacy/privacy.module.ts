import { Module } from '@nestjs/common';
import { PurgeLeaseRepository } from './retention/purge-lease.repository';
import { RetentionPurger } from './retention/retention-purger';
import { RetentionRepository } from './retention/retention.repository';
import { UsageRollup } from './usage/usage-rollup';
import { UsageController } from './usage/usage.controller';
import { UsageRepository } from './usage/usage.repository';
import { UsageService } from './usage/usage.service';

/**
 * Data lifecycle (issue 29): the retention purger (retention/) and the daily usage records that outlive
 * the messages (usage/, GET /api/v2/account/usage).
 */
@Module({
  controllers: [UsageController],
  providers: [RetentionRepository, PurgeLeaseRepository, RetentionPurger, UsageRepository, UsageService, UsageRollup],
})
export class PrivacyModule {}
