import { Global, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import Redis from 'ioredis';
import { AccountsModule } from '../accounts/accounts.module';
import { Clock } from '../common/clock';
import { AppConfig } from '../config/app-config';
import { GEO_PERMISSIONS } from '../messaging/validation/lookups';
import { VERIFICATION_EVENTS } from '../messaging/verification-events';
import { VERIFICATION_GUARD } from '../messaging/verification-guard';
import { AdminGeoPermissionsController } from './admin-geo-permissions.controller';
import { AdminFraudBlocksController } from './admin-fraud-blocks.controller';
import { FraudBlocksController } from './fraud-blocks.controller';
import { FraudBlocksRepository } from './fraud-blocks.repository';
import { FraudBlocksService } from './fraud-blocks.service';
import { FraudGuardService } from './fraud-guard.service';
import { FraudSweeper } from './fraud-sweeper';
import { GeoPermissionsEntity } from './entities/geo-permissions.entity';
import { GeoPermissionsController } from './geo-permissions.controller';
import { GeoPermissionsRepository } from './geo-permissions.repository';
import { GeoPermissionsService } from './geo-permissions.service';
import { PREFIX_COUNTERS } from './prefix-counters';
import { PrefixCountersRepository } from './prefix-counters.repository';
import { RedisPrefixCounters } from './prefix-counters.redis';
import { VerificationActivity } from './verification-activity';
import { VerificationDailyCounts } from './verification-daily-counts';
import { VerificationDailyCountsRepository } from './verification-daily-counts.repository';
import { VerificationStatsController } from './verification-stats.controller';

const FRAUD_REDIS = Symbol('FRAUD_REDIS');

/** Closes the Redis connection of the counters (when REDIS_URL is set) with the app. */
class FraudRedisCloser implements OnApplicationShutdown {
  constructor(private readonly redis: Redis | null) {}
  async onApplicationShutdown(): Promise<void> {
    if (this.redis) await this.redis.quit().catch(() => this.redis?.disconnect());
  }
}

/**
 * The fraud guard (issue 31): geo permissions (the destination countries an account may send to)
 * and verification pumping detection. Messaging and verification reach it only through the ports
 * they declare, so this module is global and exports those tokens (GEO_PERMISSIONS, VERIFICATION_GUARD, VERIFICATION_EVENTS).
 */
@Global()
@Module({
  imports: [AccountsModule, TypeOrmModule.forFeature([GeoPermissionsEntity])],
  controllers: [
    GeoPermissionsController,
    AdminGeoPermissionsController,
    FraudBlocksController,
    AdminFraudBlocksController,
    VerificationStatsController,
  ],
  providers: [
    GeoPermissionsRepository,
    GeoPermissionsService,
    { provide: GEO_PERMISSIONS, useExisting: GeoPermissionsService },
    {
      provide: FRAUD_REDIS,
      inject: [AppConfig],
      useFactory: (config: AppConfig): Redis | null => {
        if (!config.redis.url) return null;
        const redis = new Redis(config.redis.url, { lazyConnect: true, maxRetriesPerRequest: 2 });
        // Failed commands answer 503 (RedisPrefixCounters); the connection's own errors are logged, not thrown.
        redis.on('error', (err: Error) => new Logger('FraudRedis').warn(`Redis: ${err.message}`));
        return redis;
      },
    },
    {
      provide: FraudRedisCloser,
      inject: [FRAUD_REDIS],
      useFactory: (redis: Redis | null) => new FraudRedisCloser(redis),
    },
    PrefixCountersRepository,
    {
      provide: PREFIX_COUNTERS,
      inject: [FRAUD_REDIS, PrefixCountersRepository, AppConfig, Clock],
      useFactory: (redis: Redis | null, db: PrefixCountersRepository, config: AppConfig, clock: Clock) =>
        redis ? new RedisPrefixCounters(redis, config.redis.keyPrefix, config.fraud.windowMs, () => clock.now()) : db,
    },
    FraudBlocksRepository,
    FraudBlocksService,
    FraudGuardService,
    FraudSweeper,
    { provide: VERIFICATION_GUARD, useExisting: FraudGuardService },
    VerificationDailyCountsRepository,
    VerificationDailyCounts,
    VerificationActivity,
    { provide: VERIFICATION_EVENTS, useExisting: VerificationActivity },
  ],
  exports: [GEO_PERMISSIONS, VERIFICATION_GUARD, VERIFICATION_EVENTS],
})
export class FraudModule {}
