import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Clock } from '../common/clock';
import { isTransientDbError } from '../database/db-errors';
import { MetricsService } from '../metrics/metrics.service';
import type { BulkJobRunner } from './bulk-job-runner';
import { BulkJobRunnerFactory } from './bulk-job-runner.factory';
import { BulkJobLeasesRepository, ClaimedTurns, Turn } from './bulk-job-leases.repository';
import { SinglePeriodicJob } from '../common/single-periodic-job';
import { ShutdownCoordinator } from '../common/shutdown/shutdown-coordinator';
import { BulkSettings } from './bulk-settings';

/** Jobs leased per claim statement. */
const CLAIM_CHUNK = 500;
/** Accounts whose turn is looked at per tick (oldest turns first). */
const TURNS_PER_TICK = 5000;

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
  private stopping = false;

  constructor(
    private readonly clock: Clock,
    private readonly settings: BulkSettings,
    private readonly scheduler: SchedulerRegistry,
    private readonly metrics: MetricsService,
    private readonly leases: BulkJobLeasesRepository,
    private readonly runnerFactory: BulkJobRunnerFactory,
    shutdown: ShutdownCoordinator,
  ) {
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
    await this.leases.releaseDispatch(this.settings.instanceId);
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
    await this.leases.resumeRateLimited(now);
    if (this.runners.size >= this.settings.maxJobsPerReplica) return;
    // Per account, the oldest job holding its turn; jobs paused by the user or for money are not
    // read at all, so however many there are, they never hide a job that may run.
    const toClaim: Turn[] = [];
    for (const j of await this.leases.turns(TURNS_PER_TICK)) {
      if (j.status === 'paused') continue;
      if (this.runners.has(j.id) || this.runners.size + toClaim.length >= this.settings.maxJobsPerReplica) continue;
      const held = j.leaseOwner !== null && j.leaseOwner !== this.settings.instanceId && (j.leaseExpiresAt ?? 0) >= now;
      if (!held) toClaim.push(j);
    }
    for (let i = 0; i < toClaim.length && !this.stopping; i += CLAIM_CHUNK) {
      const chunk = toClaim.slice(i, i + CLAIM_CHUNK);
      const { won, quiet } = await this.claim(chunk.map((c) => c.id));
      for (const c of chunk) if (won.has(c.id) && !this.stopping) this.start(c, quiet.has(c.id));
    }
  }

  /**
   * Leases many jobs in one short transaction: the free ones are read with a locking read that, on
   * databases with row locks, skips rows another transaction holds (a replica frozen inside its window
   * transaction holds its job's row), so one held job never makes the claim, and with it every other
   * account's job, wait; a skipped job is looked at again next tick. A lock wait that still times out
   * (DB_LOCK_WAIT_TIMEOUT_S) is "try later" too.
   */
  private async claim(jobIds: string[]): Promise<ClaimedTurns> {
    const now = this.clock.now();
    const me = this.settings.instanceId;
    const until = now + this.settings.dispatchLeaseMs;
    try {
      const claimed = await this.leases.claimTurns(jobIds, me, until, now);
      this.metrics.recordLeaseTakeover('bulk_dispatch', claimed.takenOver);
      return claimed;
    } catch (err) {
      if (!isTransientDbError(err)) throw err;
      this.log.warn(`bulk claim skipped this tick (${String(err)}); retried next tick`);
      return { won: new Set(), quiet: new Set(), takenOver: 0 };
    }
  }

  /** `quiet`: no row of the job was settled in the last second, so it has no recent sends to pace after. */
  private start(turn: Turn, quiet: boolean): void {
    const runner = this.runnerFactory.create(turn, quiet);
    const done = runner.run().finally(() => this.runners.delete(turn.id));
    this.runners.set(turn.id, { runner, done });
  }
}
