import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { AppConfig } from '../config/app-config';
import { RequestContextMiddleware } from './request-context';
import { AppLogger } from './app-logger';
import { requestMixin } from './request-log';

/**
 * Structured JSON logs (pino) carrying the request id; keys and tokens are redacted, never logged.
 * nestjs-pino provides the Nest logger; its pino-http middleware is not mounted (no routes): the
 * request log is request-log.ts's middleware (bootstrap.ts), and lines written inside a request name
 * it through the mixin, with the URL's secret-bearing query values redacted in one place.
 */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        forRoutes: [],
        pinoHttp: {
          level: config.logging.level,
          mixin: requestMixin,
          redact: {
            paths: [
              'req.headers["x-api-key"]',
              'req.headers.authorization',
              'req.headers.cookie',
              '*.webhookSecret',
              '*.key',
            ],
            censor: '[redacted]',
          },
        },
      }),
    }),
  ],
  providers: [AppLogger],
  exports: [AppLogger],
})
export class LoggingModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RequestContextMiddleware).forRoutes('*');
  }
}
