import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The request being handled, for what reads it while the request runs: the audit trail (who made the
 * change) and the log lines written inside a request (which request they belong to). One store for
 * both, entered once per request.
 */
export const currentRequest = new AsyncLocalStorage<Request>();

/**
 * Runs the rest of each request inside its context. A middleware, not an interceptor: a global
 * interceptor puts every request through Nest's rxjs and AsyncResource.bind path, which more than
 * halved authenticated reads (bench:api). Nest middleware runs after the body parser, whose stream
 * callbacks would otherwise leave the context behind.
 */
@Injectable()
export class RequestContextMiddleware implements NestMiddleware {
  use(req: Request, _res: Response, next: NextFunction): void {
    currentRequest.run(req, next);
  }
}
