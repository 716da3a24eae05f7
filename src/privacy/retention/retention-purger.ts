import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Clock } from '../../common/clock';
import { idAt, randomPart, timeOfId } from '../../common/ids';
import { ShutdownCoordinator } from '../../common/shutdown/shutdown-coordinator';
import { SinglePeriodicJob } from '../../common/single-periodic-job';
import { AppConfig } from '../../config/app-config';
import type { RetentionConfig } from '../../config/retention.config';
import { MetricsService } from '../../metrics/metrics.service';
import { PurgeLeaseRepository } from './purge-lease.repository';
import { AccountRetention, AccountsService } from '../../accounts/accounts.service';
import {
  ExpiredMessage,
  Purged,
  PurgedTable,
  PURGED_TABLES,
  RetentionPurges,
} from '../../common/retention/retention-purges';
import { accountIdOf } from '../../common/account-id';
import { UnitOfWork } from '../../database/unit-of-work';

const LEASE = 'retention-purge';
const ACCOUNTS_PAGE = 200;
/** Jobs looked at per account per pass (each deleted in chunks of the batch size). */
const JOBS_PER_ACCOUNT = 20;
/** Others held the one writer this share of the time since the last unit: the service is busy (see `rest`). */
const BUSY_LOAD = 0.05;

/**
 * How the purger goes on after a unit (see RetentionPurger.rest): busy when others held the one writer at
 * least BUSY_LOAD of the `sinceMs` since the last rest began (`othersMs`; null where writes run side by
 * side: never busy); then units of a quarter batch and at most RETENTION_PURGE_BUSY_SHARE of the time.
 */
export function purgePace(
  s: Pick<RetentionConfig, 'purgeBatch' | 'purgeShare' | 'purgeBusyShare'>,
  othersMs: number | null,
  sinceMs: number,
): { busy: boolean; rows: number; share: number } {
  const busy = othersMs !== null && sinceMs > 0 && othersMs >= BUSY_LOAD * sinceMs;
  const rows = busy ? Math.max(10, Math.ceil(s.purgeBatch / 4)) : s.purgeBatch;
  return { busy, rows, share: Math.min(s.purgeShare, busy ? s.purgeBusyShare : 100) / 100 };
}

/** The rows several units deleted, per table. */
export function sumPurged(all: Purged[]): Purged {
  const sum: Purged = {};
  for (const purged of all)
    for (const [table, n] of Object.entries(purged) as [keyof Purged, number][]) sum[table] = (sum[table] ?? 0) + n;
  return sum;
}

/** What one pass deleted, per table. */
export type PurgeReport = Purged;

/**
 * The one retention purger (issue 29): every RETENTION_PURGE_TICK_MS and once at start-up, on the
 * replica that holds its lease, deletes what is past its retention (docs/operations.md, "Data kept and
 * for how long"): messages counted into usage and unchanged for the retention (one range over every
 * account on the default, one per account with its own `retentionDays`), each with its history, provider
 * ids and sandbox delivery in one unit; per account its settled bulk jobs with their rows and its inbound
 * messages; and every sandbox delivery past RETENTION_SANDBOX_DAYS. Units of RETENTION_PURGE_BATCH rows
 * found by an index range, each a short transaction, with a turn for sending between two; on a database
 * with one writer, smaller units and rests while other work keeps it busy (purgePace).
 */
@Injectable()
export class RetentionPurger implements OnApplicationBootstrap {
  private readonly job = new SinglePeriodicJob('retention-purge', () => this.purge());
  private readonly owner = `purge:${randomPart(16)}`;
  private readonly settings: RetentionConfig;
  private leaseUntil = 0;
  /** When the current unit began (for RETENTION_PURGE_SHARE). */
  private unitStart = 0;
  /** When the last rest began (the pass's start before the first), and others' time on the one writer then (UnitOfWork.foregroundMs). */
  private mark: { at: number; others: number | null } = { at: 0, others: null };
  /** Rows the next unit deletes (purgePace: a quarter batch while the service is busy). */
  private rows = 0;

  constructor(
    private readonly parts: RetentionPurges,
    private readonly accounts: AccountsService,
    private readonly leases: PurgeLeaseRepository,
    private readonly clock: Clock,
    private readonly metrics: MetricsService,
    private readonly scheduler: SchedulerRegistry,
    private readonly config: AppConfig,
    private readonly uow: UnitOfWork,
    shutdown: ShutdownCoordinator,
  ) {
    this.settings = config.retention;
    shutdown.register({
      name: 'retention-purge',
      stopClaiming: () => this.job.halt(),
      drain: () => this.job.idle(),
      releaseLeases: () => this.leases.release(LEASE, this.owner),
    });
    metrics.addGaugeSource('retention', () => this.refreshOldest());
  }

  onApplicationBootstrap(): void {
    if (!this.config.schedulers.enabled) return;
    void this.job.tick();
    this.job.start(this.scheduler, this.settings.purgeTickMs);
  }

  /** One pass now (unless one is running); what it deleted, or undefined when none ran. */
  async tick(): Promise<PurgeReport | undefined> {
    return this.job.tick();
  }

  /** One pass: nothing unless this replica holds (or takes) the lease. Background work (UnitOfWork.background). */
  async purge(): Promise<PurgeReport> {
    return this.uow.background(() => this.pass());
  }

  private async pass(): Promise<PurgeReport> {
    const report: PurgeReport = {};
    if (!(await this.holdLease())) return report;
    this.unitStart = this.clock.now();
    this.mark = { at: this.unitStart, others: this.uow.foregroundMs() };
    this.rows = this.settings.purgeBatch;
    const s = this.settings;
    const now = this.clock.now();
    const sandboxBefore = idAt('sbx', now - s.sandboxDeliveriesDays * s.dayMs);
    await this.drain(report, 'sandbox_deliveries', (n) => this.parts.of('sandbox').deleteBefore(sandboxBefore, n));
    const inboundBefore = now - s.inboundDays * s.dayMs;
    await this.drain(report, 'inbound_sms', (n) => this.parts.of('inboundSms').deleteBefore(null, inboundBefore, n));
    const accounts = await this.allAccounts();
    // Most accounts keep messages for the default: theirs go by one range over every account's messages
    // (minus the accounts that keep them longer); an account with its own retention is read on its own.
    const own = accounts.filter((a) => a.retentionDays !== null && a.retentionDays !== s.messagesDays);
    const longer = new Set(own.filter((a) => (a.retentionDays ?? 0) > s.messagesDays).map((a) => a.accountId));
    const messages = this.parts.of('messages');
    const onDefault = now - s.messagesDays * s.dayMs;
    const expiredOnDefault = (from: number, n: number) => messages.expiredAnyAccount(from, onDefault, n);
    if (!(await this.purgeMessages(expiredOnDefault, onDefault, longer, report))) return report;
    for (const a of own) {
      const before = now - (a.retentionDays ?? 0) * s.dayMs;
      const expired = (from: number, n: number) => messages.expiredOfAccount(a.accountId, from, before, n);
      if (!(await this.purgeMessages(expired, before, undefined, report))) return report;
    }
    for (const a of accounts) if (!(await this.purgeAccount(a, now, report))) return report;
    return report;
  }

  private async allAccounts(): Promise<AccountRetention[]> {
    const all: AccountRetention[] = [];
    for (let after = ''; ;) {
      const page = await this.accounts.retentionPage(accountIdOf(after), ACCOUNTS_PAGE);
      all.push(...page);
      if (page.length < ACCOUNTS_PAGE) return all;
      after = page[page.length - 1].accountId;
    }
  }

  /**
   * Deletes the messages `expired` reads from a time on (oldest first, `n` a page; none of `keptLonger`'s),
   * a page a unit, until a page is not full. False when the pass must stop (halted, lease lost).
   */
  private async purgeMessages(
    expired: (from: number, n: number) => Promise<ExpiredMessage[]>,
    before: number,
    keptLonger: ReadonlySet<string> | undefined,
    report: PurgeReport,
  ): Promise<boolean> {
    // Where writes run side by side, a page holds RETENTION_PURGE_STREAMS units, deleted at once (disjoint ids).
    const streams = this.uow.capabilities.concurrentWrites ? this.settings.purgeStreams : 1;
    for (let from = 0; ;) {
      const rows = this.rows;
      const page = await expired(from, rows * streams);
      const units: string[][] = [];
      for (let i = 0; i < page.length; i += rows) units.push(page.slice(i, i + rows).map((m) => m.id));
      const purged = sumPurged(
        await Promise.all(units.map((ids) => this.parts.of('messages').delete(ids, before, keptLonger))),
      );
      if (!(await this.step(report, purged, 0))) return false;
      if (page.length < rows * streams) return true;
      // The page's last time is read again (rows left there: kept longer, changed since, or held by a
      // sender); past it when the page deleted nothing, so the range always moves on.
      const last = page[page.length - 1].at;
      from = purged.messages ? last : last + 1;
    }
  }

  /** One account's expired jobs and inbound messages; false when the pass must stop (halted, lease lost). */
  private async purgeAccount(a: AccountRetention, now: number, report: PurgeReport): Promise<boolean> {
    const s = this.settings;
    const days = (def: number) => (a.retentionDays ?? def) * s.dayMs;
    const jobsBefore = now - days(s.bulkJobsDays);
    for (const jobId of await this.parts
      .of('bulkJobs')
      .expiredJobIds(a.accountId, idAt('bulk', jobsBefore), jobsBefore, JOBS_PER_ACCOUNT)) {
      for (;;) {
        const { purged, done } = await this.parts.of('bulkJobs').deleteJobChunk(jobId, this.rows);
        if (!(await this.step(report, purged, 1)) || done) break;
      }
    }
    const inboundBefore = now - days(s.inboundDays);
    await this.drain(report, 'inbound_sms', (n) =>
      this.parts.of('inboundSms').deleteBefore(a.accountId, inboundBefore, n),
    );
    const webBefore = idAt('win', inboundBefore);
    await this.drain(report, 'web_inbound_messages', (n) =>
      this.parts.of('webInbound').deleteBefore(a.accountId, webBefore, n),
    );
    return !this.job.halted && (await this.holdLease());
  }

  /** Deletes batches of one table (`n` rows each) until a batch is not full. */
  private async drain(report: PurgeReport, table: PurgedTable, batch: (n: number) => Promise<number>): Promise<void> {
    for (;;) {
      const n = this.rows;
      if (!(await this.step(report, { [table]: await batch(n) }, n))) return;
    }
  }

  /**
   * Adds a unit's deletions to the report and the counters; true to go on: the unit deleted at least
   * `full` rows of one table (a full batch, so there may be more), the job is not halted and the lease held.
   */
  private async step(report: PurgeReport, purged: Purged, full: number): Promise<boolean> {
    await this.rest();
    let most = 0;
    for (const [table, n] of Object.entries(purged) as [keyof Purged, number][]) {
      if (!n) continue;
      report[table] = (report[table] ?? 0) + n;
      this.metrics.recordRetentionPurged(table, n);
      most = Math.max(most, n);
    }
    return most >= full && !this.job.halted && (await this.holdLease());
  }

  /**
   * Between two units: a turn for what waits on the event loop (requests and their statements), and a
   * rest in proportion to the unit's time when the purger's share is under 100: RETENTION_PURGE_SHARE,
   * or at most RETENTION_PURGE_BUSY_SHARE while the service is busy. Busy: on a database with one writer
   * (where each unit stops every sender for its length), other work held the writer at least BUSY_LOAD of
   * the time since the last rest began; then units are also a quarter batch, so a sender waits less.
   * Where writes run side by side the purger does not yield (sending kept its rate there while it deleted).
   */
  private async rest(): Promise<void> {
    const now = this.clock.now();
    const worked = now - this.unitStart;
    const others = this.uow.foregroundMs();
    const { at, others: before } = this.mark;
    const pace = purgePace(this.settings, others === null || before === null ? null : others - before, now - at);
    this.mark = { at: now, others };
    this.rows = pace.rows;
    if (pace.share < 1 && worked > 0) await this.clock.sleep((worked * (1 - pace.share)) / pace.share);
    else await new Promise<void>((resolve) => setImmediate(resolve));
    this.unitStart = this.clock.now();
  }

  /** Holds the lease (renewed once a third of it has passed); false when another replica has it. */
  private async holdLease(): Promise<boolean> {
    const now = this.clock.now();
    const leaseMs = Math.max(2 * this.settings.purgeTickMs, 120_000);
    if (now < this.leaseUntil - (2 * leaseMs) / 3) return true;
    const got = await this.leases.acquire(LEASE, this.owner, now, now + leaseMs);
    if (got.takeover) this.metrics.recordLeaseTakeover('retention_purge');
    this.leaseUntil = got.taken ? now + leaseMs : 0;
    return got.taken;
  }

  /** The age of the oldest row of each table (its first time-sorted key). */
  private async refreshOldest(): Promise<void> {
    const now = this.clock.now();
    for (const table of PURGED_TABLES) {
      const key = await this.parts.oldestKey(table);
      const at = key === null ? null : timeOfId(key);
      this.metrics.setRetentionOldestAge(table, at === null ? 0 : (now - at) / 1000);
    }
  }
}
