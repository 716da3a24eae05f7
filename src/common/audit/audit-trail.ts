import type { AccountId } from '../account-id';
/** Every kind of change the audit trail records (GET /api/v2/audit-events filters by these). */
export const AUDIT_EVENT_TYPES = [
  'api_key.created',
  'api_key.revoked',
  'webhook.settings_changed',
  'webhook.endpoint_created',
  'webhook.endpoint_updated',
  'webhook.endpoint_deleted',
  'sender.default_changed',
  'geo_permissions.changed',
  'privacy.erasure_requested',
  'privacy.erasure_completed',
  'account.balance_changed',
  'account.plan_changed',
  'account.retention_changed',
] as const;
export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

/** A value of a change: plain data only, and never a secret (key secrets, signing secrets, tokens). */
export type AuditValue = string | number | boolean | null | readonly AuditValue[] | { [k: string]: AuditValue };

/** One change in an account. */
export interface AuditEntry {
  accountId: AccountId;
  type: AuditEventType;
  /** What changed (`key_...`, `wep_...`, a sender name); null when the account itself. */
  target?: string | null;
  /** `{ before, after }` of the fields that changed, or a summary of what happened. */
  changes: { [k: string]: AuditValue };
  /** Who did it: by default the API key of the request, `operator` for the admin API, `system` outside a request. */
  actor?: string;
}

/**
 * Port (the privacy module keeps the trail; every layer that changes an account records into it):
 * `record` joins the unit of work open in the caller's async context, so the entry commits if and
 * only if the change does. Provided globally by PrivacyModule.
 */
export interface AuditTrail {
  record(entry: AuditEntry): Promise<void>;
}

export const AUDIT_TRAIL = Symbol('AUDIT_TRAIL');
