import { Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { ApiError } from '../common/errors';
import { newId } from '../common/ids';
import type { SendPipeline } from '../messaging/send-pipeline';
import type { MessageValidator, ValidationContext } from '../messaging/validation/message-validator';
import { BulkDb, sql, Work } from './bulk-db';
import { BulkSettings } from './bulk-settings';
import { SendWindow } from './send-window';

export interface RunnerDeps {
  db: BulkDb;
  clock: Clock;
  settings: BulkSettings;
  validator: MessageValidator;
  pipeline: SendPipeline;
}

interface RowToSend {
  idx: number;
  payload: string;
  messageId: string | null;
}

type Stop = 'done' | 'stopped' | 'lost';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Sends one leased job's rows, paced by a sliding window, until the job completes, is paused or
 * cancelled, or the lease is lost. Each row is marked `sending` with its message id before the
 * pipeline runs; a row found `sending` later (crash, lost lease) is sent again with the SAME id, which
 * the pipeline settles through its message log and the provider's lookup instead of sending twice.
 */
export class BulkJobRunner {
  private readonly log = new Logger(BulkJobRunner.name);
  private readonly window = new SendWindow();
  private ctx: ValidationContext;
  private stopRequested = false;

  constructor(
    private readonly d: RunnerDeps,
    readonly jobId: string,
    private readonly accountId: string,
  ) {
    this.ctx = d.validator.createContext(accountId);
  }

  stop(): void {
    this.stopRequested = true;
  }

  async run(): Promise<Stop> {
    try {
      await this.loadWindow();
      for (;;) {
        if (this.stopRequested) return this.release('stopped');
        const mps = await this.renew();
        if (mps === null) return 'lost';
        if (mps === 0) return this.release('stopped');
        const rows = await this.nextRows(mps);
        if (!rows.length) return (await this.complete()) ? 'done' : this.release('stopped');
        for (const row of rows) {
          const wait = this.window.waitMs(this.d.clock.now(), mps);
          if (wait > 0) await sleep(wait);
          if (!(await this.sendRow(row))) return this.release('stopped');
        }
      }
    } catch (err) {
      this.log.error({ err, jobId: this.jobId }, 'bulk job runner failed; the lease will expire and the job resume');
      return 'lost';
    }
  }

  private async loadWindow(): Promise<void> {
    const since = this.d.clock.now() - 1000;
    const rows = await this.d.db.rows(sql(`SELECT sent_at FROM bulk_rows WHERE job_id = ? AND status = 'sent' AND sent_at >= ? ORDER BY sent_at`, this.jobId, since));
    for (const r of rows) this.window.record(Number(r.sent_at));
  }

  /** Extends the lease and returns the job's rate, 0 when it should stop, null when the lease is gone. */
  private async renew(): Promise<number | null> {
    const now = this.d.clock.now();
    const { jobId } = this;
    const me = this.d.settings.instanceId;
    const lease = now + this.d.settings.leaseMs;
    return this.d.db.run(function* (): Work<number | null> {
      // A retry-failed or resume may have set the job back to `queued` while we hold it.
      const r = yield sql(
        `UPDATE bulk_jobs SET lease_expires_at = ?, status = CASE WHEN status = 'queued' THEN 'running' ELSE status END WHERE id = ? AND lease_owner = ?`,
        lease, jobId, me,
      );
      if (r.affected !== 1) return null;
      const j = yield sql('SELECT status, messages_per_second FROM bulk_jobs WHERE id = ?', jobId);
      const job = j.rows[0];
      return job && job.status === 'running' ? Number(job.messages_per_second) : 0;
    });
  }

  private async nextRows(n: number): Promise<RowToSend[]> {
    // Rows left `sending` first: their outcome must be settled before anything new goes out.
    const rows = await this.d.db.rows(
      sql(`SELECT idx, payload, message_id FROM bulk_rows WHERE job_id = ? AND status IN ('sending', 'pending') ORDER BY status DESC, idx LIMIT ${n}`, this.jobId),
    );
    return rows.map((r) => ({ idx: Number(r.idx), payload: String(r.payload), messageId: r.message_id === null ? null : String(r.message_id) }));
  }

  /** Returns false when the job must stop (paused). */
  private async sendRow(row: RowToSend): Promise<boolean> {
    const messageId = row.messageId ?? newId('msg');
    if (!(await this.claim(row, messageId))) return true; // cancelled meanwhile
    let msg;
    try {
      msg = await this.d.validator.validate(this.ctx, JSON.parse(row.payload), { bulkRow: true });
    } catch (err) {
      const e = err instanceof ApiError ? err : new ApiError('VALIDATION_ERROR', 'The row could not be checked');
      await this.settle(row.idx, 'failed', e.code, e.message, null);
      return true;
    }
    try {
      const result = await this.d.pipeline.send(this.accountId, msg, { bulkJobId: this.jobId, rowIndex: row.idx, messageId });
      const at = this.d.clock.now();
      this.window.record(at);
      if (result.status === 'failed') await this.settle(row.idx, 'failed', result.errorCode ?? 'PROVIDER_REJECTED', 'The provider rejected the message', at);
      else await this.settle(row.idx, 'sent', null, null, at);
      return true;
    } catch (err) {
      this.window.record(this.d.clock.now());
      if (!(err instanceof ApiError)) throw err;
      if (err.code === 'INSUFFICIENT_BALANCE' || err.code === 'SUBSCRIPTION_INACTIVE') {
        await this.pause(row.idx, 'insufficient_balance', null);
        return false;
      }
      if (err.code === 'PROVIDER_RATE_LIMITED') {
        const retryMs = (err.extra.retryAfterSeconds ?? 0) * 1000;
        await this.pause(row.idx, 'provider_rate_limit', this.d.clock.now() + Math.max(this.d.settings.rateLimitBackoffMs, retryMs));
        return false;
      }
      await this.settle(row.idx, 'failed', err.code, err.message, this.d.clock.now());
      return true;
    }
  }

  private async claim(row: RowToSend, messageId: string): Promise<boolean> {
    const r = await this.d.db.one(
      sql(`UPDATE bulk_rows SET status = 'sending', message_id = ? WHERE job_id = ? AND idx = ? AND status IN ('pending', 'sending')`, messageId, this.jobId, row.idx),
    );
    return r.affected === 1;
  }

  private async settle(idx: number, status: 'sent' | 'failed', code: string | null, message: string | null, at: number | null): Promise<void> {
    const { jobId } = this;
    const counter = status === 'sent' ? 'sent_count' : 'failed_count';
    await this.d.db.run(function* (): Work<void> {
      const r = yield sql(
        `UPDATE bulk_rows SET status = ?, error_code = ?, error_message = ?, sent_at = ? WHERE job_id = ? AND idx = ? AND status = 'sending'`,
        status, code, message === null ? null : message.slice(0, 500), at, jobId, idx,
      );
      if (r.affected === 1) yield sql(`UPDATE bulk_jobs SET pending_count = pending_count - 1, ${counter} = ${counter} + 1 WHERE id = ?`, jobId);
    });
  }

  /** The row goes back to `pending` (keeping its message id: the pipeline reuses the log entry). */
  private async pause(idx: number, reason: 'insufficient_balance' | 'provider_rate_limit', resumeAt: number | null): Promise<void> {
    const { jobId } = this;
    const now = this.d.clock.now();
    const me = this.d.settings.instanceId;
    await this.d.db.run(function* (): Work<void> {
      yield sql(`UPDATE bulk_rows SET status = 'pending' WHERE job_id = ? AND idx = ? AND status = 'sending'`, jobId, idx);
      yield sql(
        `UPDATE bulk_jobs SET status = 'paused', pause_reason = ?, resume_at = ?, lease_owner = NULL, lease_expires_at = NULL, updated_at = ? WHERE id = ? AND status = 'running' AND lease_owner = ?`,
        reason, resumeAt, now, jobId, me,
      );
    });
  }

  private async complete(): Promise<boolean> {
    const r = await this.d.db.one(
      sql(
        `UPDATE bulk_jobs SET status = 'completed', lease_owner = NULL, lease_expires_at = NULL, updated_at = ? WHERE id = ? AND status = 'running' AND lease_owner = ?
         AND NOT EXISTS (SELECT 1 FROM bulk_rows WHERE job_id = ? AND status IN ('pending', 'sending'))`,
        this.d.clock.now(), this.jobId, this.d.settings.instanceId, this.jobId,
      ),
    );
    return r.affected === 1;
  }

  private async release(result: Stop): Promise<Stop> {
    await this.d.db.one(sql('UPDATE bulk_jobs SET lease_owner = NULL, lease_expires_at = NULL WHERE id = ? AND lease_owner = ?', this.jobId, this.d.settings.instanceId));
    return result;
  }
}
