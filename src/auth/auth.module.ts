import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { AccountsModule } from '../accounts/accounts.module';
import { AppConfig } from '../config/app-config';
import { ApiThrottlerGuard, PER_IP_THROTTLER } from './api-throttler.guard';
import { AuthenticationGuard } from './authentication.guard';
import { AuthorizationGuard } from './authorization.guard';
import { FixedWindowThrottlerStorage } from './fixed-window-throttler.storage';

/** Guards run in this order on every route: authenticate -> throttle -> authorize. */
@Module({
  imports: [
    AccountsModule,
    ThrottlerModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        throttlers: [
          { name: 'default', ttl: config.throttle.ttlSeconds * 1000, limit: config.throttle.limit },
          // Retry-After comes from the error envelope; the library's would be named `Retry-After-ip`.
          {
            name: PER_IP_THROTTLER,
            ttl: config.throttle.publicTtlSeconds * 1000,
            limit: config.throttle.publicLimit,
            setHeaders: false,
            getTracker: (req: Record<string, unknown>) => `ip:${typeof req.ip === 'string' ? req.ip : 'unknown'}`,
          },
        ],
        // lazyConnect: no socket until the first request, so an app that fails to start leaves none open.
        storage: config.redis.url
          ? new ThrottlerStorageRedisService(config.redis.url, { lazyConnect: true, keyPrefix: config.redis.keyPrefix })
          : new FixedWindowThrottlerStorage(),
      }),
    }),
  ],
  providers: [
    { provide: APP_GUARD, useClass: AuthenticationGuard },
    { provide: APP_GUARD, useClass: ApiThrottlerGuard },
    { provide: APP_GUARD, useClass: AuthorizationGuard },
  ],
})
export class AuthModule {}
