import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import { Observable } from 'rxjs';
import type { AuthedRequest } from '../../auth/auth-context';

/** Who is making the request and its id, for the audit entries written while it is handled. */
export interface AuditCaller {
  actor: string;
  requestId: string | null;
}

/** The caller of the request being handled (read by AuditTrailService; nothing else). */
export const auditCaller = new AsyncLocalStorage<AuditCaller>();

/**
 * Runs each handler inside the caller's context: the API key's id, or `operator` on the admin API
 * (after the guards, so the caller is known). The handler runs on subscription, hence the wrapper.
 */
@Injectable()
export class AuditContextInterceptor implements NestInterceptor {
  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (ctx.getType() !== 'http') return next.handle();
    const req = ctx.switchToHttp().getRequest<AuthedRequest>();
    const actor = req.auth?.keyId ?? (req.isAdmin ? 'operator' : 'anonymous');
    const caller: AuditCaller = { actor, requestId: req.requestId ?? null };
    return new Observable((subscriber) => auditCaller.run(caller, () => next.handle().subscribe(subscriber)));
  }
}
