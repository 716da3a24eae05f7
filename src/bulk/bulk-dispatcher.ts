import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Clock } from '../common/clock';
import { WindowSender } from '../messaging/window-sender';
import { MessageValidator } from '../messaging/validation/message-validator';
import { isTransientDbError } from '../database/db-errors';
import { MetricsService } from '../metrics/metrics.service';
import { UnitOfWork } from '../database/unit-of-work';
import { inList, sql, StmtResult, Steps } from '../database/sql';
import { BulkJobRunner, RunnerDeps } from './bulk-job-runner';
import { SinglePeriodicJob } from '../common/single-periodic-job';
import { ShutdownCoordinator } from '../common/shutdown/shutdown-coordinator';
import { BulkSettings } from './bulk-settings';
import { WindowTxProbe } from './window-tx-probe';
import { BulkJobEvents } from './bulk-job-events';

/** Jobs leased per claim statement. */
const CLAIM_CHUNK = 500;
/** Accounts whose turn is looked at per tick (oldest turns first). */
const TURNS_PER_TICK = 5000;
/** Jobs that hold their account's turn: running or waiting to run, or paused by a provider rate limit. */
const HOLDS_TURN = `status IN ('queued', 'running') OR (status = 'paused' AND pause_reason = 'provider_rate_limit')`;

interface Turn {
  id: string;
  accountId: string;
  /** Fixed once intake finished, so read here once for the runner. */
  mps: number;
}

/**
 * Paced dispatch. Each tick: jobs paused for a provider rate limit whose backoff ended go back to
 * `queued`; then, per account, the oldest job that holds the account's turn (queued / running, or
 * paused by a provider rate limit, which keeps its turn) is leased by a conditional UPDATE and run by
 * a BulkJobRunner in this replica. Jobs paused by the user or for money give the turn to the next.
 */
@Injectable()
export class BulkDispatcher implements OnApplicationBootstrap {
  private readonly log = new Logger(BulkDispatcher.name);
  private readonly loop = new SinglePeriodicJob('bulk-dispatch', () => this.dispatchOnce());
  private readonly runners = new Map<string, { runner: BulkJobRunner; done: Promise<unknown> }>();
  private readonly deps: RunnerDeps;
  private stopping = false;

  constructor(
    private readonly db: UnitOfWork,
    private readonly clock: Clock,
    private readonly settings: BulkSettings,
    validator: MessageValidator,
    windows: WindowSender,
    private readonly scheduler: SchedulerRegistry,
    private readonly metrics: MetricsService,
    shutdown: ShutdownCoordinator,
    events: BulkJobEvents,
  ) {
    this.deps = { db, clock, settings, validator, windows, metrics, events, probe: new WindowTxProbe(settings.testHooks) };
    // Each runner, once stopped, writes its window's outcomes and releases its job's lease itself.
    shutdown.register({
      name: 'bulk-dispatch',
      stopClaiming: () => {
        this.stopping = true;
        this.loop.halt();
        for (const { runner } of this.runners.values()) runner.stop();
      },
      drain: async () => {
        await this.loop.idle();
        // (Jobs a claim under way won after shutdown began are not started; the sweep frees them.)
        await Promise.allSettled([...this.runners.values()].map((r) => r.done));
      },
      releaseLeases: () => this.releaseLeases(),
    });
  }

  onApplicationBootstrap(): void {
    if (this.settings.schedulersEnabled) this.loop.start(this.scheduler, this.settings.dispatchTickMs);
  }

  /** Jobs still leased to this replica (a runner that failed before letting go): free for the next claim. */
  private async releaseLeases(): Promise<void> {
    await this.db.run(sql(`UPDATE bulk_jobs SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = ? AND status IN ('queued', 'running')`, this.settings.instanceId));
  }

  get activeJobs(): number {
    return this.runners.size;
  }

  /** One dispatch pass; overlapping calls are skipped (safe to call from a timer). */
  async tick(): Promise<void> {
    await this.loop.tick();
  }

  private async dispatchOnce(): Promise<void> {
    if (this.stopping) return;
    const now = this.clock.now();
    await this.db.run(
      sql(
        `UPDATE bulk_jobs SET status = 'queued', pause_reason = NULL, resume_at = NULL, updated_at = ? WHERE status = 'paused' AND pause_reason = 'provider_rate_limit' AND resume_at <= ?`,
        now, now,
      ),
    );
    if (this.runners.size >= this.settings.maxJobsPerReplica) return;
    // Per account, the oldest job holding its turn; jobs paused by the user or for money are not
    // read at all, so however many there are, they never hide a job that may run.
    const turns = await this.db.rows(
      sql(
        `SELECT j.id, j.account_id, j.status, j.messages_per_second, j.lease_owner, j.lease_expires_at
         FROM bulk_jobs j JOIN (SELECT MIN(id) AS id FROM bulk_jobs WHERE ${HOLDS_TURN} GROUP BY account_id) t ON t.id = j.id
         ORDER BY j.id LIMIT ${TURNS_PER_TICK}`,
      ),
    );
    const toClaim: Turn[] = [];
    for (const j of turns) {
      if (j.status === 'paused') continue;
      const id = String(j.id);
      if (this.runners.has(id) || this.runners.size + toClaim.length >= this.settings.maxJobsPerReplica) continue;
      const held = j.lease_owner !== null && j.lease_owner !== this.settings.instanceId && Number(j.lease_expires_at) >= now;
      if (!held) toClaim.push({ id, accountId: String(j.account_id), mps: Number(j.messages_per_second) });
    }
    for (let i = 0; i < toClaim.length && !this.stopping; i += CLAIM_CHUNK) {
      const chunk = toClaim.slice(i, i + CLAIM_CHUNK);
      const won = await this.claim(chunk.map((c) => c.id));
      for (const c of chunk) if (won.has(c.id) && !this.stopping) this.start(c);
    }
  }

  /**
   * Leases many jobs in one short transaction: the free ones are read with a locking read that, on
   * databases with row locks, skips rows another transaction holds (a replica frozen inside its window
   * transaction holds its job's row), so one held job never makes the claim, and with it every other
   * account's job, wait; a skipped job is looked at again next tick. A lock wait that still times out
   * (DB_LOCK_WAIT_TIMEOUT_S) is "try later" too.
   */
  private async claim(jobIds: string[]): Promise<Set<string>> {
    const now = this.clock.now();
    const me = this.settings.instanceId;
    const until = now + this.settings.dispatchLeaseMs;
    const skipLocked = this.db.capabilities.skipLocked ? ' FOR UPDATE SKIP LOCKED' : '';
    try {
      const { won, takenOver } = await this.db.steps(function* (): Steps<{ won: Set<string>; takenOver: number }> {
        const free: StmtResult = yield sql(
          `SELECT id, lease_owner FROM bulk_jobs WHERE id IN (${inList(jobIds.length)}) AND status IN ('queued', 'running') AND (lease_owner IS NULL OR lease_owner = ? OR lease_expires_at < ?)${skipLocked}`,
          ...jobIds, me, now,
        );
        const won = free.rows.map((r) => String(r.id));
        if (!won.length) return { won: new Set<string>(), takenOver: 0 };
        // (The rows are locked by the read above, or the embedded database's one writer is us: no condition needed.)
        yield sql(`UPDATE bulk_jobs SET status = 'running', lease_owner = ?, lease_expires_at = ?, updated_at = ? WHERE id IN (${inList(won.length)})`, me, until, now, ...won);
        // Another owner's lease that we could take had expired (a runner releases its lease when it stops).
        return { won: new Set(won), takenOver: free.rows.filter((r) => r.lease_owner !== null && r.lease_owner !== me).length };
      });
      this.metrics.recordLeaseTakeover('bulk_dispatch', takenOver);
      return won;
    } catch (err) {
      if (!isTransientDbError(err)) throw err;
      this.log.warn(`bulk claim skipped this tick (${String(err)}); retried next tick`);
      return new Set();
    }
  }

  private start(turn: Turn): void {
    const runner = new BulkJobRunner(this.deps, turn.id, turn.accountId, turn.mps);
    const done = runner.run().finally(() => this.runners.delete(turn.id));
    this.runners.set(turn.id, { runner, done });
  }
}
