import { Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { IncomingMessage } from 'node:http';
import { AppConfig } from '../config/app-config';
import { AppLogger } from './app-logger';
import { redactUrl } from './redact-url';

/**
 * Structured JSON logs (pino) carrying the request id; keys and tokens are redacted, never logged.
 * Every log line about a request (completed, errored, or logged inside it) serialises `req` here,
 * so the URL's secret-bearing query values are redacted in one place.
 */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        pinoHttp: {
          level: config.logging.level,
          genReqId: (req: IncomingMessage) => (req as IncomingMessage & { requestId?: string }).requestId ?? 'unknown',
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
          autoLogging: { ignore: (req: IncomingMessage) => (req.url ?? '').startsWith('/health') },
          serializers: {
            req: (req: { id: string; method: string; url: string }) => ({
              id: req.id,
              method: req.method,
              url: redactUrl(req.url),
            }),
          },
        },
      }),
    }),
  ],
  providers: [AppLogger],
  exports: [AppLogger],
})
export class LoggingModule {}
