import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import express, { NextFunction, Request, Response } from 'express';
import { AppModule } from './app.module';
import { AppConfig } from './config/app-config';
import { AppLogger } from './logging/app-logger';
import { requestLogMiddleware } from './logging/request-log';
import { ApiError, expressErrorHandler } from './common/errors';
import { exceedsJsonDepth, tooDeepMessage } from './common/json-depth';
import { setupOpenApi } from './common/openapi';
import { requestIdMiddleware } from './common/request-id';
import { securityHeaders } from './common/http/security-headers';
import { oneLayer } from './common/http/one-layer';
import { CONSOLE_PATH, consoleRouter } from './console/console-static';
import { httpMetricsMiddleware } from './metrics/http-metrics.middleware';
import { MetricsService } from './metrics/metrics.service';

/**
 * Routes that read their body as a stream themselves (bulk intake, its dry run and the DND list
 * import have no size limit; a suppression CSV import is limited in rows, not bytes), so the JSON
 * body parser must leave them alone.
 */
const STREAMED_ROUTES: { method: string; path: RegExp }[] = [
  { method: 'POST', path: /^\/api\/v2\/messages\/bulk\/?(\?.*)?$/ },
  // The dry run reads the same body the same way.
  { method: 'POST', path: /^\/api\/v2\/messages\/bulk\/validate\/?(\?.*)?$/ },
  { method: 'POST', path: /^\/api\/v2\/suppressions\/import\/?(\?.*)?$/ },
  // The operator's do-not-disturb list import: a CSV of millions of numbers.
  { method: 'PUT', path: /^\/admin\/v1\/dnd\/?(\?.*)?$/ },
];

/** Everything an app needs around the module: shared by main.ts and the e2e app factory. */
export function configureApp(app: NestExpressApplication): void {
  const config = app.get(AppConfig);
  const logger = app.get(AppLogger);
  app.useLogger(logger);
  app.disable('x-powered-by');
  // Express's own production behaviour (no stack traces) follows our reading of NODE_ENV, not its own.
  app.set('env', config.isProduction ? 'production' : 'development');
  if (config.server.trustProxy !== null) app.set('trust proxy', config.server.trustProxy);
  app.use(
    oneLayer(
      securityHeaders(),
      requestIdMiddleware,
      requestLogMiddleware(logger.pino),
      httpMetricsMiddleware(app.get(MetricsService)),
    ),
  );
  const json = express.json({
    limit: config.server.bodyLimitBytes,
    type: ['application/json', 'application/*+json'],
    // Inbound provider hooks verify signatures over the exact bytes they were sent.
    verify: (req: Request & { rawBody?: Buffer }, _res, buf) => {
      if (req.originalUrl.startsWith('/hooks/')) req.rawBody = buf;
    },
  });
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    if (STREAMED_ROUTES.some((r) => r.method === req.method && r.path.test(req.originalUrl))) return next();
    return json(req, res, (err?: unknown) => {
      if (err) return next(err);
      // Before any recursive consumer (validation pipe, class-transformer) sees the body.
      if (exceedsJsonDepth(req.body)) return next(new ApiError('INVALID_REQUEST_BODY', tooDeepMessage()));
      return next();
    });
  });
  // The developer console's static files (a browser app that calls the API like any client).
  app.use(CONSOLE_PATH, consoleRouter());
  app.use(expressErrorHandler);
  // DOCS_ENABLED off: /docs, /docs/admin and their JSON are not mounted, so they answer the 404 envelope.
  if (config.docs.enabled) setupOpenApi(app, config.server.publicBaseUrl);
  // (Signals are handled by main.ts through exitOnShutdownSignal, not Nest's enableShutdownHooks.)
}

export async function createApp(): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule, { bodyParser: false, bufferLogs: true });
  configureApp(app);
  return app;
}
