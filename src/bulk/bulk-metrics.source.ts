import { Injectable, OnModuleInit } from '@nestjs/common';
import { MetricsService } from '../metrics/metrics.service';
import { BulkJobRepository } from './bulk-job.repository';

/**
 * bulk_jobs{status} and bulk_rows_pending, from the jobs' own counters: one GROUP BY over the live
 * jobs that the (status, pending_count) index answers alone, never a scan of bulk_rows.
 */
@Injectable()
export class BulkMetricsSource implements OnModuleInit {
  constructor(
    private readonly jobs: BulkJobRepository,
    private readonly metrics: MetricsService,
  ) {}

  onModuleInit(): void {
    this.metrics.addGaugeSource('bulk', () => this.refresh());
  }

  async refresh(): Promise<void> {
    const { jobs, pending } = await this.jobs.liveCounts();
    this.metrics.setBulkJobs(jobs, pending);
  }
}
