import type { Clock } from '../common/clock';
import type { BulkJobLeasesRepository } from './bulk-job-leases.repository';

/**
 * A runner's lease on its job, as last written. Each window's claim renews it (`renewedUntil`); before
 * each provider call the pacer asks `keep()`, which renews it here when under `marginMs` (1.5 provider
 * timeouts) is left, as in a slow window, and answers false when another replica took the job.
 * Cutting the window short instead held its paid rows for the next window, which sends them one by
 * one: under load every window ended so (6 statements a message at 1,000 tenants).
 */
export class JobLease {
  private until = 0;
  /** The renewal in flight: a window's lanes that find the lease short wait for the same UPDATE. */
  private renewing: Promise<boolean> | null = null;

  constructor(
    private readonly leases: Pick<BulkJobLeasesRepository, 'renew'>,
    private readonly clock: Clock,
    private readonly job: { jobId: string; owner: string; leaseMs: number; marginMs: number },
  ) {}

  /** The expiry a window's claim is about to write (and the runner's lease from then on). */
  renewedUntil(at: number): number {
    this.until = at + this.job.leaseMs;
    return this.until;
  }

  keep(): Promise<boolean> {
    if (this.until - this.clock.now() >= this.job.marginMs) return Promise.resolve(true);
    this.renewing ??= this.renew().finally(() => (this.renewing = null));
    return this.renewing;
  }

  private async renew(): Promise<boolean> {
    const until = this.clock.now() + this.job.leaseMs;
    if (!(await this.leases.renew(this.job.jobId, this.job.owner, until))) return false;
    this.until = Math.max(this.until, until);
    return true;
  }
}
