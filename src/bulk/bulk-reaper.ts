import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Clock } from '../common/clock';
import { SinglePeriodicJob } from '../common/single-periodic-job';
import { MessageLog } from '../messaging/message-log';
import { SendPipeline } from '../messaging/send-pipeline';
import { BulkDb, sql, StmtResult, Work } from './bulk-db';
import { BulkSettings } from './bulk-settings';

interface Settled {
  idx: number;
  status: 'sent' | 'failed' | 'cancelled';
  code: string | null;
  message: string | null;
  at: number;
}

const CANCELLED = { code: 'CANCELLED', message: 'The job was cancelled before this message was sent' };

/**
 * At start-up and then every BULK_REAPER_TICK_MS:
 * - jobs left `accepting` (process killed mid-upload, client gone) whose intake lease expired become
 *   `rejected` / INTAKE_INCOMPLETE and lose their rows;
 * - cancelled jobs whose last window was cut off (crash or lost lease, then cancel) still have rows in
 *   `sending` that no runner will touch again: with no live lease on the job, each is settled from
 *   the message log, nothing is sent: sent -> sent; failed -> failed; paid but never handed to the
 *   provider -> `cancelled` (its message failed CANCELLED and refunded); handed off -> as the pipeline
 *   settles unknown outcomes; never paid -> `cancelled`.
 */
@Injectable()
export class BulkReaper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(BulkReaper.name);
  private readonly loop = new SinglePeriodicJob('bulk-reaper', async () => {
    await this.reap();
    await this.settleOrphans();
  });

  constructor(
    private readonly db: BulkDb,
    private readonly clock: Clock,
    private readonly settings: BulkSettings,
    private readonly scheduler: SchedulerRegistry,
    private readonly log: MessageLog,
    private readonly pipeline: SendPipeline,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.reap();
    await this.settleOrphans();
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

  /** Returns how many rows were settled. */
  async settleOrphans(): Promise<number> {
    const now = this.clock.now();
    const jobs = await this.db.rows(
      sql(
        `SELECT id FROM bulk_jobs WHERE status = 'cancelled' AND (lease_owner IS NULL OR lease_expires_at < ?)
         AND EXISTS (SELECT 1 FROM bulk_rows WHERE bulk_rows.job_id = bulk_jobs.id AND bulk_rows.status = 'sending') ORDER BY id LIMIT 20`,
        now,
      ),
    );
    let n = 0;
    for (const job of jobs) {
      const id = String(job.id);
      const me = this.settings.instanceId;
      const claim = await this.db.one(
        sql(
          `UPDATE bulk_jobs SET lease_owner = ?, lease_expires_at = ? WHERE id = ? AND status = 'cancelled' AND (lease_owner IS NULL OR lease_expires_at < ?)`,
          me, now + this.settings.dispatchLeaseMs, id, now,
        ),
      );
      if (claim.affected !== 1) continue;
      try {
        n += await this.settleJob(id);
      } catch (err) {
        this.logger.error({ err, jobId: id }, 'settling the rows of a cancelled job failed; will retry');
      } finally {
        await this.db.one(sql('UPDATE bulk_jobs SET lease_owner = NULL, lease_expires_at = NULL WHERE id = ? AND lease_owner = ?', id, me));
      }
    }
    return n;
  }

  private async settleJob(jobId: string): Promise<number> {
    const rows = await this.db.rows(sql(`SELECT idx, message_id FROM bulk_rows WHERE job_id = ? AND status = 'sending' ORDER BY idx LIMIT 1000`, jobId));
    const settled: Settled[] = [];
    for (const r of rows) {
      const s = await this.settleRow(Number(r.idx), r.message_id === null ? null : String(r.message_id));
      if (s) settled.push(s);
    }
    if (!settled.length) return 0;
    const now = this.clock.now();
    return this.db.run(function* (): Work<number> {
      const count = { sent: 0, failed: 0, cancelled: 0 };
      for (const s of settled) {
        const r: StmtResult = yield sql(
          `UPDATE bulk_rows SET status = ?, error_code = ?, error_message = ?, sent_at = ? WHERE job_id = ? AND idx = ? AND status = 'sending'`,
          s.status, s.code, s.message, s.status === 'cancelled' ? null : s.at, jobId, s.idx,
        );
        count[s.status] += r.affected;
      }
      const total = count.sent + count.failed + count.cancelled;
      if (total) {
        yield sql(
          `UPDATE bulk_jobs SET pending_count = pending_count - ?, sent_count = sent_count + ?, failed_count = failed_count + ?, cancelled_count = cancelled_count + ?, updated_at = ? WHERE id = ?`,
          total, count.sent, count.failed, count.cancelled, now, jobId,
        );
      }
      return total;
    });
  }

  /** One orphaned row's outcome, from the message log (paid and open messages settled, never sent). */
  private async settleRow(idx: number, messageId: string | null): Promise<Settled | null> {
    const now = this.clock.now();
    let m = messageId ? await this.log.findById(messageId) : null;
    if (!m) return { idx, status: 'cancelled', code: null, message: null, at: now };
    if (m.status === 'queued' || m.status === 'scheduled') {
      await this.pipeline.reconcile(m, CANCELLED).catch((err: unknown) => this.logger.warn(`settling message ${m!.id} failed: ${String(err)}`));
      m = await this.log.findById(m.id);
      if (!m) return null;
    }
    if (m.status === 'sent') return { idx, status: 'sent', code: null, message: null, at: m.sentAt ?? now };
    if (m.status !== 'failed') return null; // still open: the next pass
    if (m.errorCode === CANCELLED.code) return { idx, status: 'cancelled', code: null, message: null, at: now };
    return { idx, status: 'failed', code: m.errorCode, message: m.errorMessage, at: m.updatedAt };
  }
}
