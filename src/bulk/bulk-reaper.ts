import { Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Clock } from '../common/clock';
import { SinglePeriodicJob } from '../common/single-periodic-job';
import { BulkDb, sql, StmtResult, Work } from './bulk-db';
import { BulkSettings } from './bulk-settings';

/**
 * Jobs left `accepting` (process killed mid-upload, client gone) whose intake lease expired become
 * `rejected` / INTAKE_INCOMPLETE and lose their rows: at start-up and then every BULK_REAPER_TICK_MS.
 */
@Injectable()
export class BulkReaper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly loop = new SinglePeriodicJob('bulk-reaper', () => this.reap());

  constructor(
    private readonly db: BulkDb,
    private readonly clock: Clock,
    private readonly settings: BulkSettings,
    private readonly scheduler: SchedulerRegistry,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.reap();
    if (this.settings.schedulersEnabled) this.loop.start(this.scheduler, this.settings.reaperTickMs);
  }

  async onModuleDestroy(): Promise<void> {
    await this.loop.stop(this.scheduler);
  }

  /** Returns how many jobs were rejected. */
  async reap(): Promise<number> {
    const now = this.clock.now();
    const stale = await this.db.rows(
      sql(`SELECT id FROM bulk_jobs WHERE status = 'accepting' AND (lease_expires_at IS NULL OR lease_expires_at < ?) ORDER BY id LIMIT 100`, now),
    );
    let n = 0;
    for (const row of stale) {
      const id = String(row.id);
      n += await this.db.run(function* (): Work<number> {
        const r: StmtResult = yield sql(
          `UPDATE bulk_jobs SET status = 'rejected', error_code = 'INTAKE_INCOMPLETE', error_message = ?, total = 0, lease_owner = NULL, lease_expires_at = NULL, updated_at = ?
           WHERE id = ? AND status = 'accepting' AND (lease_expires_at IS NULL OR lease_expires_at < ?)`,
          'The upload stopped before every row was stored', now, id, now,
        );
        if (r.affected) yield sql('DELETE FROM bulk_rows WHERE job_id = ?', id);
        return r.affected;
      });
    }
    return n;
  }
}
