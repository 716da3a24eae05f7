import type { AuthedRequest } from '../../auth/auth-context';
import { currentRequest } from '../../logging/request-context';

/** Who is making the request and its id, for the audit entries written while it is handled. */
export interface AuditCaller {
  actor: string;
  requestId: string | null;
}

/**
 * The caller of the request being handled, read when an entry is written (after the guards, so the
 * caller is known): the API key's id, or `operator` on the admin API; undefined outside a request.
 */
export function auditCallerNow(): AuditCaller | undefined {
  const req = currentRequest.getStore() as AuthedRequest | undefined;
  if (!req) return undefined;
  return { actor: req.auth?.keyId ?? (req.isAdmin ? 'operator' : 'anonymous'), requestId: req.requestId ?? null };
}
