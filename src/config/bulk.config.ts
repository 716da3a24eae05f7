import type { EnvReader } from './env-reader';
import type { RuntimeMode } from './runtime-mode';

/** Tunables of bulk jobs (tests set them low to run the loops fast). */
export interface BulkConfig {
  /** BULK_INSTANCE_ID (at most 40 characters): this replica's lease owner name; null: a fresh id per process. */
  instanceId: string | null;
  /** Rows per INSERT (and transaction) of the streamed intake. */
  intakeBatch: number;
  /** Largest element of a streamed bulk body, in bytes (a larger one is refused as soon as it passes this). */
  maxElementBytes: number;
  intakeLeaseMs: number;
  reaperTickMs: number;
  validationTickMs: number;
  validationChunk: number;
  /** Jobs one replica validates side by side (each a chain of chunk reads, checks and writes). */
  validationConcurrency: number;
  /** Rows read per query by the CSV export (one page in memory at a time). */
  exportPageRows: number;
  dispatchTickMs: number;
  /** BULK_LEASE_MS as set. */
  leaseMs: number;
  /** Lease of a dispatched job: BULK_LEASE_MS, but at least two provider timeouts (a call never outlives it). */
  dispatchLeaseMs: number;
  rateLimitBackoffMs: number;
  /** BULK_SEND_LANES: provider calls of one job's window in flight at once (never more than its messagesPerSecond). */
  sendLanes: number;
  maxJobsPerReplica: number;
  /** Bulk idempotency replay window. */
  idempotencyWindowMs: number;
  /** BULK_EVENTS_HEARTBEAT_MS: a comment line on an idle bulk job event stream this often (proxies close silent connections). */
  eventsHeartbeatMs: number;
  /** BULK_EVENTS_MAX_PER_ACCOUNT: event streams one account may hold open on one replica (429 past it). */
  eventsMaxPerAccount: number;
  /** Test-only probes in the bulk runner (refused outside NODE_ENV=test). */
  testHooks: boolean;
}

export function bulkSection(r: EnvReader, mode: RuntimeMode, providerTimeoutMs: number): BulkConfig {
  const leaseMs = r.int('BULK_LEASE_MS', 15_000, 100);
  const testHooks = r.bool('BULK_TEST_HOOKS', false);
  if (testHooks && mode.nodeEnv !== 'test') r.fail('BULK_TEST_HOOKS is only allowed when NODE_ENV=test');
  return {
    instanceId: r.optional('BULK_INSTANCE_ID')?.slice(0, 40) ?? null,
    intakeBatch: r.int('BULK_INTAKE_BATCH', 1000, 1, 5000),
    // Capped at 16 MiB: one element is parsed in one synchronous step, which must stay short.
    maxElementBytes: r.int('BULK_MAX_ELEMENT_BYTES', 65536, 1024, 16 * 1024 * 1024),
    intakeLeaseMs: r.int('BULK_INTAKE_LEASE_MS', 60_000, 100),
    reaperTickMs: r.int('BULK_REAPER_TICK_MS', 30_000, 10),
    validationTickMs: r.int('BULK_VALIDATION_TICK_MS', 200, 5),
    validationChunk: r.int('BULK_VALIDATION_CHUNK', 2000, 1),
    validationConcurrency: r.int('BULK_VALIDATION_CONCURRENCY', 8, 1, 64),
    exportPageRows: r.int('BULK_EXPORT_PAGE_ROWS', 2000, 1, 10_000),
    dispatchTickMs: r.int('BULK_DISPATCH_TICK_MS', 100, 5),
    leaseMs,
    dispatchLeaseMs: Math.max(leaseMs, 2 * providerTimeoutMs),
    rateLimitBackoffMs: r.int('BULK_RATE_LIMIT_BACKOFF_MS', 30_000, 1),
    sendLanes: r.int('BULK_SEND_LANES', 10, 1, 10),
    maxJobsPerReplica: r.int('BULK_MAX_JOBS_PER_REPLICA', 2000, 1),
    idempotencyWindowMs: r.int('IDEMPOTENCY_WINDOW_HOURS', 24, 1) * 3_600_000,
    eventsHeartbeatMs: r.int('BULK_EVENTS_HEARTBEAT_MS', 15_000, 10, 300_000),
    eventsMaxPerAccount: r.int('BULK_EVENTS_MAX_PER_ACCOUNT', 20, 1, 10_000),
    testHooks,
  };
}
