import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AuthedRequest } from '../../auth/auth-context';

/** Who is making the request and its id, for the audit entries written while it is handled. */
export interface AuditCaller {
  actor: string;
  requestId: string | null;
}

/** The request being handled (read through auditCallerNow by AuditTrailService; nothing else). */
export const auditRequest = new AsyncLocalStorage<AuthedRequest>();

/**
 * The caller of the request being handled, read when an entry is written (after the guards, so the
 * caller is known): the API key's id, or `operator` on the admin API; undefined outside a request.
 */
export function auditCallerNow(): AuditCaller | undefined {
  const req = auditRequest.getStore();
  if (!req) return undefined;
  return { actor: req.auth?.keyId ?? (req.isAdmin ? 'operator' : 'anonymous'), requestId: req.requestId ?? null };
}

/**
 * Runs the rest of each request inside its context. A middleware, not an interceptor: a global
 * interceptor puts every request through Nest's rxjs and AsyncResource.bind path, which more than
 * halved authenticated reads (bench:api). Nest middleware runs after the body parser, whose stream
 * callbacks would otherwise leave the context behind.
 */
@Injectable()
export class AuditContextMiddleware implements NestMiddleware {
  use(req: AuthedRequest, _res: Response, next: NextFunction): void {
    auditRequest.run(req, next);
  }
}
