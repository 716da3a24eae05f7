import { Injectable, OnModuleInit } from '@nestjs/common';
import { MetricsService } from '../metrics/metrics.service';
import { UnitOfWork } from '../database/unit-of-work';
import { inList, sql } from '../database/sql';
import type { JobStatus } from './bulk-job.view';

/** Statuses a job can leave: finished jobs (completed, cancelled, rejected) only ever grow, so they are not gauged. */
const LIVE: JobStatus[] = ['accepting', 'validating', 'queued', 'running', 'paused'];

/**
 * bulk_jobs{status} and bulk_rows_pending, from the jobs' own counters: one GROUP BY over the live
 * jobs that the (status, pending_count) index answers alone, never a scan of bulk_rows.
 */
@Injectable()
export class BulkMetricsSource implements OnModuleInit {
  constructor(
    private readonly db: UnitOfWork,
    private readonly metrics: MetricsService,
  ) {}

  onModuleInit(): void {
    this.metrics.addGaugeSource('bulk', () => this.refresh());
  }

  async refresh(): Promise<void> {
    const rows = await this.db.rows(
      sql(`SELECT status, COUNT(*) AS jobs, SUM(pending_count) AS pending FROM bulk_jobs WHERE status IN (${inList(LIVE.length)}) GROUP BY status`, ...LIVE),
    );
    const jobs = Object.fromEntries(LIVE.map((s) => [s, 0]));
    let pending = 0;
    for (const r of rows) {
      jobs[String(r.status)] = Number(r.jobs);
      pending += Number(r.pending ?? 0);
    }
    this.metrics.setBulkJobs(jobs, pending);
  }
}
