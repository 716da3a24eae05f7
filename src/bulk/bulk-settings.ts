import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { newId } from '../common/ids';

/** Tunables of the bulk module (all from AppConfig, so tests can run the loops fast). */
@Injectable()
export class BulkSettings {
  /** This process, as a lease owner (BULK_INSTANCE_ID when set: must be unique per replica). */
  readonly instanceId: string;
  readonly intakeBatch: number;
  readonly maxElementBytes: number;
  readonly intakeLeaseMs: number;
  readonly reaperTickMs: number;
  readonly validationTickMs: number;
  readonly validationChunk: number;
  /** Rows read per query by the CSV export (one page in memory at a time). */
  readonly exportPageRows: number;
  readonly dispatchTickMs: number;
  readonly leaseMs: number;
  /** Dispatch lease: BULK_LEASE_MS, but at least two provider timeouts (a call never outlives the lease). */
  readonly dispatchLeaseMs: number;
  readonly providerTimeoutMs: number;
  readonly rateLimitBackoffMs: number;
  readonly maxJobsPerReplica: number;
  readonly idempotencyWindowMs: number;
  readonly schedulersEnabled: boolean;
  readonly testHooks: boolean;

  constructor(config: AppConfig) {
    this.instanceId = (config.optional('BULK_INSTANCE_ID') ?? newId('rep')).slice(0, 40);
    this.intakeBatch = config.int('BULK_INTAKE_BATCH', 1000, 1, 5000);
    this.maxElementBytes = config.bulkMaxElementBytes;
    this.intakeLeaseMs = config.int('BULK_INTAKE_LEASE_MS', 60_000, 100);
    this.reaperTickMs = config.int('BULK_REAPER_TICK_MS', 30_000, 10);
    this.validationTickMs = config.int('BULK_VALIDATION_TICK_MS', 200, 5);
    this.validationChunk = config.int('BULK_VALIDATION_CHUNK', 2000, 1);
    this.exportPageRows = config.int('BULK_EXPORT_PAGE_ROWS', 2000, 1, 10_000);
    this.dispatchTickMs = config.int('BULK_DISPATCH_TICK_MS', 100, 5);
    this.leaseMs = config.bulkLeaseMs;
    this.providerTimeoutMs = config.providerTimeoutMs;
    this.dispatchLeaseMs = config.bulkDispatchLeaseMs;
    this.rateLimitBackoffMs = config.int('BULK_RATE_LIMIT_BACKOFF_MS', 30_000, 1);
    this.maxJobsPerReplica = config.int('BULK_MAX_JOBS_PER_REPLICA', 500, 1);
    this.idempotencyWindowMs = config.idempotencyWindowHours * 3_600_000;
    this.schedulersEnabled = config.schedulersEnabled;
    this.testHooks = config.bulkTestHooks;
  }
}
