import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { newId } from '../common/ids';

/** Tunables of the bulk module (the `bulk` config section and what it shares with others). */
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
  readonly validationConcurrency: number;
  /** Rows read per query by the CSV export (one page in memory at a time). */
  readonly exportPageRows: number;
  readonly dispatchTickMs: number;
  readonly leaseMs: number;
  /** Dispatch lease: BULK_LEASE_MS, but at least two provider timeouts (a call never outlives the lease). */
  readonly dispatchLeaseMs: number;
  readonly providerTimeoutMs: number;
  readonly rateLimitBackoffMs: number;
  readonly sendLanes: number;
  readonly maxJobsPerReplica: number;
  readonly idempotencyWindowMs: number;
  readonly schedulersEnabled: boolean;
  /** Heartbeat of a bulk job's event stream. */
  readonly eventsHeartbeatMs: number;
  /** Open event streams per account on this replica. */
  readonly eventsMaxPerAccount: number;
  readonly testHooks: boolean;

  constructor(config: AppConfig) {
    const bulk = config.bulk;
    this.instanceId = bulk.instanceId ?? newId('rep');
    this.intakeBatch = bulk.intakeBatch;
    this.maxElementBytes = bulk.maxElementBytes;
    this.intakeLeaseMs = bulk.intakeLeaseMs;
    this.reaperTickMs = bulk.reaperTickMs;
    this.validationTickMs = bulk.validationTickMs;
    this.validationChunk = bulk.validationChunk;
    this.validationConcurrency = bulk.validationConcurrency;
    this.exportPageRows = bulk.exportPageRows;
    this.dispatchTickMs = bulk.dispatchTickMs;
    this.leaseMs = bulk.leaseMs;
    this.providerTimeoutMs = config.providers.timeoutMs;
    this.dispatchLeaseMs = bulk.dispatchLeaseMs;
    this.rateLimitBackoffMs = bulk.rateLimitBackoffMs;
    this.sendLanes = bulk.sendLanes;
    this.maxJobsPerReplica = bulk.maxJobsPerReplica;
    this.idempotencyWindowMs = bulk.idempotencyWindowMs;
    this.schedulersEnabled = config.schedulers.enabled;
    this.eventsHeartbeatMs = bulk.eventsHeartbeatMs;
    this.eventsMaxPerAccount = bulk.eventsMaxPerAccount;
    this.testHooks = bulk.testHooks;
  }
}
