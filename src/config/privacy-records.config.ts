import type { EnvReader } from './env-reader';

/** Erasure of one recipient (issue 29): the background loop that anonymises their rows. */
export interface ErasureConfig {
  /** ERASURE_TICK_MS: how often a replica looks for a running erasure (a new one is also started at once). */
  tickMs: number;
  /** ERASURE_BATCH_ROWS: rows anonymised per statement (one short transaction each). */
  batchRows: number;
  /** How long a replica holds an erasure before another may take it over (renewed every batch). */
  leaseMs: number;
}

/** The audit trail of who changed what in an account. */
export interface AuditConfig {
  /** AUDIT_RETENTION_DAYS: events older than this are deleted (default a year). */
  retentionMs: number;
  /** AUDIT_PURGE_TICK_MS: how often old events are deleted, in bounded chunks. */
  purgeTickMs: number;
}

export function erasureSection(r: EnvReader): ErasureConfig {
  return {
    tickMs: r.int('ERASURE_TICK_MS', 5000, 100, 3_600_000),
    batchRows: r.int('ERASURE_BATCH_ROWS', 1000, 1, 10_000),
    leaseMs: 60_000,
  };
}

export function auditSection(r: EnvReader): AuditConfig {
  return {
    retentionMs: r.int('AUDIT_RETENTION_DAYS', 365, 1, 3650) * 86_400_000,
    purgeTickMs: r.int('AUDIT_PURGE_TICK_MS', 3_600_000, 1000, 86_400_000),
  };
}
