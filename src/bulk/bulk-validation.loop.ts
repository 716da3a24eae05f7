import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { LedgerService } from '../accounts/ledger.service';
import { Clock } from '../common/clock';
import { MessageValidator, ValidationContext } from '../messaging/validation/message-validator';
import { UnitOfWork } from '../database/unit-of-work';
import { sql, SqlParam, Stmt, StmtResult, Steps } from '../database/sql';
import { SinglePeriodicJob } from '../common/single-periodic-job';
import { ShutdownCoordinator } from '../common/shutdown/shutdown-coordinator';
import { BulkSettings } from './bulk-settings';
import { canPayNextRow } from './next-row-payment';
import { MetricsService } from '../metrics/metrics.service';
import { checkBulkRow, RowProblem } from './row-check';
import type { BulkJobErrorCode } from './bulk-error-codes';
import { BulkJobEvents } from './bulk-job-events';

interface Invalid extends RowProblem {
  idx: number;
}

/** Invalid rows marked per statement (5 parameters a row: well under every dialect's limit). */
const MARK_CHUNK = 500;

/** One UPDATE marks rows invalid, each with its own error (CASE on idx). */
function markInvalid(jobId: string, rows: Invalid[]): Stmt {
  const cases = rows.map(() => 'WHEN ? THEN ?').join(' ');
  const codes: SqlParam[] = [];
  const messages: SqlParam[] = [];
  for (const r of rows) {
    codes.push(r.idx, r.code);
    messages.push(r.idx, r.message);
  }
  return {
    sql: `UPDATE bulk_rows SET status = 'invalid', error_code = CASE idx ${cases} END, error_message = CASE idx ${cases} END WHERE job_id = ? AND idx IN (${rows.map(() => '?').join(', ')})`,
    params: [...codes, ...messages, jobId, ...rows.map((r) => r.idx)],
  };
}

/**
 * Background validation: a replica leases a `validating` job, runs every row through the messaging
 * validator in chunks (validatedCount rises per chunk), then moves the job to `rejected`
 * (VALIDATION_FAILED / INSUFFICIENT_BALANCE) or `queued`. Nothing is sent before that.
 */
@Injectable()
export class BulkValidationLoop implements OnApplicationBootstrap {
  private readonly loop = new SinglePeriodicJob('bulk-validation', () => this.runOnce());

  constructor(
    private readonly db: UnitOfWork,
    private readonly clock: Clock,
    private readonly settings: BulkSettings,
    private readonly validator: MessageValidator,
    private readonly ledger: LedgerService,
    private readonly scheduler: SchedulerRegistry,
    private readonly metrics: MetricsService,
    shutdown: ShutdownCoordinator,
    private readonly events: BulkJobEvents,
  ) {
    // Shutdown: the chunk being checked is saved, then the job's lease is let go (validatedCount kept).
    shutdown.register({ name: 'bulk-validation', stopClaiming: () => this.loop.halt(), drain: () => this.loop.idle(), releaseLeases: () => this.releaseLeases() });
  }

  onApplicationBootstrap(): void {
    if (this.settings.schedulersEnabled) this.loop.start(this.scheduler, this.settings.validationTickMs);
  }

  private async releaseLeases(): Promise<void> {
    await this.db.run(sql(`UPDATE bulk_jobs SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = ? AND status = 'validating'`, this.settings.instanceId));
  }

  /** Validates every job it can lease; returns how many it finished. */
  async runOnce(): Promise<number> {
    const now = this.clock.now();
    const candidates = await this.db.rows(
      sql(`SELECT id, lease_owner FROM bulk_jobs WHERE status = 'validating' AND (lease_expires_at IS NULL OR lease_expires_at < ?) ORDER BY id LIMIT 10`, now),
    );
    let done = 0;
    for (const c of candidates) {
      if (this.loop.halted) break;
      const id = String(c.id);
      if (!(await this.lease(id))) continue;
      // Another replica's expired lease: it stopped validating this job part-way.
      if (c.lease_owner !== null && c.lease_owner !== this.settings.instanceId) this.metrics.recordLeaseTakeover('bulk_validation');
      done += (await this.validateJob(id)) ? 1 : 0;
    }
    return done;
  }

  private async lease(jobId: string): Promise<boolean> {
    const now = this.clock.now();
    const r = await this.db.run(
      sql(
        `UPDATE bulk_jobs SET lease_owner = ?, lease_expires_at = ? WHERE id = ? AND status = 'validating' AND (lease_owner IS NULL OR lease_owner = ? OR lease_expires_at < ?)`,
        this.settings.instanceId, now + this.settings.leaseMs, jobId, this.settings.instanceId, now,
      ),
    );
    return r.affected === 1;
  }

  private async validateJob(jobId: string): Promise<boolean> {
    const [job] = await this.db.rows(sql('SELECT account_id, validated_count, total FROM bulk_jobs WHERE id = ?', jobId));
    if (!job) return false;
    const accountId = String(job.account_id);
    const ctx = this.validator.createContext(accountId);
    let from = Number(job.validated_count);
    const total = Number(job.total);
    while (from < total) {
      const rows = await this.db.rows(sql(`SELECT idx, payload FROM bulk_rows WHERE job_id = ? AND idx >= ? ORDER BY idx LIMIT ${this.settings.validationChunk}`, jobId, from));
      if (!rows.length) break;
      const invalid = await this.check(ctx, rows);
      const next = Number(rows[rows.length - 1].idx) + 1;
      if (!(await this.saveChunk(jobId, next, invalid))) return false; // cancelled or lease lost
      if (this.loop.halted) return false; // shutdown: the next lease holder goes on from `next`
      from = next;
      // On the embedded database every statement resolves without I/O: let timers, requests and signals in between chunks.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return this.conclude(jobId, accountId);
  }

  private async check(ctx: ValidationContext, rows: Record<string, unknown>[]): Promise<Invalid[]> {
    const invalid: Invalid[] = [];
    for (const row of rows) {
      const verdict = await checkBulkRow(this.validator, ctx, () => JSON.parse(String(row.payload)));
      if (!verdict.ok) invalid.push({ idx: Number(row.idx), code: verdict.code, message: verdict.message });
    }
    return invalid;
  }

  private async saveChunk(jobId: string, next: number, invalid: Invalid[]): Promise<boolean> {
    const now = this.clock.now();
    const me = this.settings.instanceId;
    const lease = now + this.settings.leaseMs;
    const marks: Stmt[] = [];
    for (let i = 0; i < invalid.length; i += MARK_CHUNK) marks.push(markInvalid(jobId, invalid.slice(i, i + MARK_CHUNK)));
    return this.db.steps(function* (): Steps<boolean> {
      const r: StmtResult = yield sql(
        `UPDATE bulk_jobs SET validated_count = ?, invalid_count = invalid_count + ?, lease_expires_at = ?, updated_at = ? WHERE id = ? AND status = 'validating' AND lease_owner = ?`,
        next, invalid.length, lease, now, jobId, me,
      );
      if (r.affected !== 1) return false;
      for (const m of marks) yield m;
      return true;
    });
  }

  private async conclude(jobId: string, accountId: string): Promise<boolean> {
    const [first] = await this.db.rows(sql(`SELECT idx, error_code, error_message FROM bulk_rows WHERE job_id = ? AND status = 'invalid' ORDER BY idx LIMIT 1`, jobId));
    if (first) {
      return this.reject(jobId, 'VALIDATION_FAILED', `messages[${Number(first.idx)}]: ${String(first.error_message)} (${String(first.error_code)})`);
    }
    // No row is invalid: every row is pending.
    if (!(await canPayNextRow(this.db, this.ledger, accountId, jobId, 'pending'))) {
      return this.reject(jobId, 'INSUFFICIENT_BALANCE', 'Free messages, plan quota and wallet balance cannot pay for one message');
    }
    const r = await this.events.around(jobId, 'bulk_job.queued', () => this.db.run(
      sql(
        `UPDATE bulk_jobs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL, updated_at = ? WHERE id = ? AND status = 'validating' AND lease_owner = ?`,
        this.clock.now(), jobId, this.settings.instanceId,
      ),
    ), (res) => res.affected === 1);
    return r.affected === 1;
  }

  /** Nothing is sent: every row not invalid becomes `cancelled`, counters say so. */
  private async reject(jobId: string, code: BulkJobErrorCode, message: string): Promise<boolean> {
    const now = this.clock.now();
    const me = this.settings.instanceId;
    const stmts: Stmt[] = [
      sql(`UPDATE bulk_rows SET status = 'cancelled' WHERE job_id = ? AND status = 'pending'`, jobId),
    ];
    return this.events.around(jobId, 'bulk_job.rejected', () => this.db.steps(function* (): Steps<boolean> {
      const r: StmtResult = yield sql(
        `UPDATE bulk_jobs SET status = 'rejected', error_code = ?, error_message = ?, pending_count = 0, cancelled_count = total, lease_owner = NULL, lease_expires_at = NULL, updated_at = ?
         WHERE id = ? AND status = 'validating' AND lease_owner = ?`,
        code, message.slice(0, 1000), now, jobId, me,
      );
      if (r.affected !== 1) return false;
      for (const s of stmts) yield s;
      return true;
    }), (moved) => moved);
  }
}
