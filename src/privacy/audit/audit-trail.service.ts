import { Injectable } from '@nestjs/common';
import type { AuditEntry, AuditTrail } from '../../common/audit/audit-trail';
import { Clock } from '../../common/clock';
import { newId } from '../../common/ids';
import { auditCallerNow } from './audit-context';
import { AuditEventsRepository } from './audit-events.repository';

/** Keys whose values never enter the trail, wherever a caller put them. */
const SECRET_KEY = /secret|token|password|key_hash|^key$|signing/i;

/** `changes` without secret-named fields (a second line of defence: callers pass no secrets). */
function withoutSecrets(value: AuditEntry['changes']): AuditEntry['changes'] {
  const out: AuditEntry['changes'] = {};
  for (const [k, v] of Object.entries(value)) {
    if (SECRET_KEY.test(k)) continue;
    out[k] = v !== null && typeof v === 'object' && !Array.isArray(v) ? withoutSecrets(v as AuditEntry['changes']) : v;
  }
  return out;
}

/** The AUDIT_TRAIL port: an entry in the caller's unit, with the request's actor and id. */
@Injectable()
export class AuditTrailService implements AuditTrail {
  constructor(
    private readonly events: AuditEventsRepository,
    private readonly clock: Clock,
  ) {}

  async record(entry: AuditEntry): Promise<void> {
    const caller = auditCallerNow();
    await this.events.insert({
      id: newId('aud'),
      accountId: entry.accountId,
      type: entry.type,
      actor: entry.actor ?? caller?.actor ?? 'system',
      requestId: caller?.requestId ?? null,
      target: entry.target ?? null,
      changes: withoutSecrets(entry.changes),
      createdAt: this.clock.now(),
    });
  }
}
