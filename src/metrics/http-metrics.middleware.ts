import type { NextFunction, Request, Response } from 'express';
import { MetricsService } from './metrics.service';

/** Route label of a request no route matched (unknown path, or refused before routing, e.g. by the body parser). */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Observes every answered request into http_request_duration_seconds. The route label is the
 * matched route's template (`/api/v2/messages/:id`), never the raw path, so ids and unknown paths
 * cannot multiply the series. Requests whose client left before the answer are not observed.
 */
export function httpMetricsMiddleware(metrics: MetricsService) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = performance.now();
    res.once('finish', () => {
      const template = (req.route as { path?: unknown } | undefined)?.path;
      // A wildcard route is middleware registered for every path (the request logger's `/{*path}`),
      // which Express leaves in req.route when no handler matched after it; no route of ours has one.
      const route =
        typeof template === 'string' && !template.includes('*') ? `${req.baseUrl}${template}` : UNMATCHED_ROUTE;
      metrics.recordHttpRequest(req.method, route, res.statusCode, (performance.now() - started) / 1000);
    });
    next();
  };
}
