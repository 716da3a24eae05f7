import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { requestIdOf } from '../request-id';
import { toEnvelope } from './to-envelope';

const logger = new Logger('Errors');

export function sendError(err: unknown, req: Request, res: Response): void {
  const mapped = toEnvelope(err, requestIdOf(req));
  if (mapped.unexpected) {
    logger.error({ err, requestId: mapped.body.requestId }, 'Unexpected error');
  }
  if (res.headersSent) {
    res.end();
    return;
  }
  if (mapped.body.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(mapped.body.retryAfterSeconds));
  res.status(mapped.status).json(mapped.body);
}

/** Every error of every route leaves through here as `{ success:false, code, error, requestId }`. */
@Catch()
export class ErrorEnvelopeFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendError(exception, http.getRequest<Request>(), http.getResponse<Response>());
  }
}

/** Express error middleware for failures before Nest's router (body parsing). */
export function expressErrorHandler(err: unknown, req: Request, res: Response, _next: NextFunction): void {
  sendError(err, req, res);
}
