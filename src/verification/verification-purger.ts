import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Clock } from '../common/clock';
import { SinglePeriodicJob } from '../common/single-periodic-job';
import { ShutdownCoordinator } from '../common/shutdown/shutdown-coordinator';
import { AppConfig } from '../config/app-config';
import { sql } from '../database/sql';
import { UnitOfWork } from '../database/unit-of-work';
import { VerificationSendLimiter } from './verification-send-limiter';

const CHUNK = 1000;

/**
 * Deletes what verification no longer needs, every VERIFICATION_PURGE_TICK_MS (and at start-up):
 * codes whose expiry is older than VERIFICATION_RETENTION_HOURS, and per-recipient send windows
 * idle for as long (a later send opens a new window anyway). In chunks, so no long lock.
 */
@Injectable()
export class VerificationPurger implements OnApplicationBootstrap {
  private readonly job = new SinglePeriodicJob('verification-purge', () => this.purge());
  private readonly retentionMs: number;
  private readonly tickMs: number;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly limiter: VerificationSendLimiter,
    private readonly scheduler: SchedulerRegistry,
    private readonly config: AppConfig,
    shutdown: ShutdownCoordinator,
  ) {
    // No leases: plain DELETEs in chunks; a pass ends after its current chunk.
    shutdown.register({
      name: 'verification-purge',
      stopClaiming: () => this.job.halt(),
      drain: () => this.job.idle(),
    });
    this.retentionMs = config.verification.retentionMs;
    this.tickMs = config.verification.purgeTickMs;
  }

  onApplicationBootstrap(): void {
    if (!this.config.schedulers.enabled) return;
    void this.job.tick();
    this.job.start(this.scheduler, this.tickMs);
  }

  /** One pass: how many codes and windows were deleted. */
  async purge(): Promise<{ codes: number; windows: number }> {
    const now = this.clock.now();
    const codes = await this.deleteOlder('verifications', 'expires_at', now - this.retentionMs);
    const windows = await this.deleteOlder(
      'verification_send_windows',
      'window_started_at',
      now - this.limiter.windowMs - this.retentionMs,
    );
    return { codes, windows };
  }

  private async deleteOlder(table: string, column: string, before: number): Promise<number> {
    let total = 0;
    for (;;) {
      // (The derived table lets a LIMIT stand inside IN on every database we run on.)
      const affected = await this.uow.exec(
        sql(
          `DELETE FROM ${table} WHERE id IN (SELECT id FROM (SELECT id FROM ${table} WHERE ${column} < ? ORDER BY ${column} LIMIT ${CHUNK}) old)`,
          before,
        ),
      );
      total += affected;
      if (affected < CHUNK || this.job.halted) return total;
    }
  }
}
