import { Injectable, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { ApiError } from '../common/errors';
import { ShutdownCoordinator } from '../common/shutdown/shutdown-coordinator';
import { DeliveryCounts, JobDelivery } from '../messaging/delivery-counts';
import { BulkJobView, JobStatus, toJobView } from './bulk-job.view';
import { BulkJobsService } from './bulk-jobs.service';
import { BulkSettings } from './bulk-settings';
import type { AccountId } from '../common/account-id';

/** How often a watched job is read: its stream changes at most twice a second. */
export const EVENTS_POLL_MS = 500;
/** Statuses after which a job no longer changes by itself (a retry of failed rows takes a new stream). */
export const FINAL_STATUSES: ReadonlySet<JobStatus> = new Set<JobStatus>(['completed', 'rejected', 'cancelled']);

/**
 * The stream ends once the job is final and settled: a job cancelled while a window was being sent
 * still finishes that window (its `pending` count drops to 0 a moment later), and the client sees it.
 */
export function isSettled(job: BulkJobView): boolean {
  return FINAL_STATUSES.has(job.status) && job.counts.pending === 0;
}
/**
 * Delivery counts read the job's delivered/read/failed messages from an index: cheap for most jobs,
 * about a second for a million receipts. They are read again only after this many times the last
 * read took (and at least every poll), so one large watched job costs a replica at most ~10% of a
 * database connection's time; the job row itself is still read every poll.
 */
const DELIVERY_COST_FACTOR = 10;
/** A client this far behind (bytes queued for it) is dropped instead of buffered for. */
const MAX_QUEUED_BYTES = 1 << 20;

interface Subscriber {
  res: Response;
  /** The last job JSON this client got. */
  last: string;
  heartbeat: NodeJS.Timeout;
}

/** One job watched on this replica: one poll, whatever the number of streams open on it. */
interface Watch {
  accountId: AccountId;
  jobId: string;
  subscribers: Set<Subscriber>;
  timer: NodeJS.Timeout | null;
  delivery: JobDelivery | null;
  /** Epoch ms after which the delivery counts are read again. */
  deliveryDueAt: number;
}

/**
 * GET /messages/bulk/{jobId}/events (text/event-stream). The job row is polled (every EVENTS_POLL_MS,
 * from the database: any replica serves any job's stream) and an `event: job` is written whenever the
 * job object, delivery counts included, differs from what the client last got; `: ping` comments keep
 * an idle connection open; once the job is final (and settled), `event: end` and the stream closes. Polling stops
 * when the last client of a job goes away. On shutdown every stream is closed at once (clients
 * reconnect to another replica), so open streams never hold up the HTTP server's drain.
 */
@Injectable()
export class BulkJobStream {
  private readonly logger = new Logger(BulkJobStream.name);
  private readonly watches = new Map<string, Watch>();
  /** Open streams per account on this replica (each costs a connection; the polls are shared per job). */
  private readonly perAccount = new Map<string, number>();
  private closing = false;

  constructor(
    private readonly jobs: BulkJobsService,
    private readonly deliveryCounts: DeliveryCounts,
    private readonly settings: BulkSettings,
    shutdown: ShutdownCoordinator,
  ) {
    shutdown.register({ name: 'bulk-job-events', stopClaiming: () => this.closeAll(), drain: () => Promise.resolve() });
  }

  /** Streams open on this replica (metrics, tests). */
  get openStreams(): number {
    let n = 0;
    for (const w of this.watches.values()) n += w.subscribers.size;
    return n;
  }

  /** Answers the stream of the account's job; throws (JSON error, nothing written) when it has no such job. */
  async open(accountId: AccountId, jobId: string, res: Response): Promise<void> {
    const job = await this.jobs.get(accountId, jobId);
    if (this.closing) throw new ApiError('SERVICE_UNAVAILABLE', 'The service is shutting down; reconnect');
    const open = this.perAccount.get(accountId) ?? 0;
    if (open >= this.settings.eventsMaxPerAccount) {
      throw new ApiError(
        'RATE_LIMITED',
        `At most ${this.settings.eventsMaxPerAccount} bulk job event streams may be open at once; close one first`,
        { retryAfterSeconds: 1 },
      );
    }
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    // Reverse proxies (nginx) would otherwise buffer the stream.
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    const first = JSON.stringify(job);
    res.write(jobEvent(first));
    if (isSettled(job)) return void res.end(endEvent(job));

    const key = `${accountId}:${job.id}`;
    const watch = this.watches.get(key) ?? this.watch(key, accountId, job.id);
    const sub: Subscriber = {
      res,
      last: first,
      heartbeat: setInterval(() => this.send(watch, sub, ': ping\n\n'), this.settings.eventsHeartbeatMs),
    };
    watch.subscribers.add(sub);
    this.perAccount.set(accountId, open + 1);
    res.on('close', () => this.leave(key, watch, sub));
  }

  private watch(key: string, accountId: AccountId, jobId: string): Watch {
    const watch: Watch = { accountId, jobId, subscribers: new Set(), timer: null, delivery: null, deliveryDueAt: 0 };
    this.watches.set(key, watch);
    this.schedule(key, watch);
    return watch;
  }

  private schedule(key: string, watch: Watch): void {
    watch.timer = setTimeout(() => void this.poll(key, watch), EVENTS_POLL_MS);
  }

  private async poll(key: string, watch: Watch): Promise<void> {
    watch.timer = null;
    let job: BulkJobView | null;
    try {
      job = await this.read(watch);
    } catch (err) {
      // A failed read (database busy) is retried at the next tick; the client sees no change meanwhile.
      this.logger.warn({ err, jobId: watch.jobId }, 'Bulk job event stream: reading the job failed; retrying');
      if (this.watches.get(key) === watch) this.schedule(key, watch);
      return;
    }
    if (this.watches.get(key) !== watch) return; // every client left (or shutdown) while reading
    const data = job ? JSON.stringify(job) : null;
    for (const sub of [...watch.subscribers]) {
      if (data !== null && data !== sub.last) {
        sub.last = data;
        this.send(watch, sub, jobEvent(data));
      }
      if (!job || isSettled(job)) this.finish(key, watch, sub, job ? endEvent(job) : '');
    }
    if (this.watches.get(key) === watch) this.schedule(key, watch);
  }

  /** The job with its delivery counts (read again when due, and always for the last event). */
  private async read(watch: Watch): Promise<BulkJobView | null> {
    const job = await this.jobs.findOwned(watch.accountId, watch.jobId);
    if (!job) return null;
    const settling = isSettled(toJobView(job));
    if (!watch.delivery || settling || Date.now() >= watch.deliveryDueAt) {
      const started = Date.now();
      watch.delivery = await this.deliveryCounts.ofBulkJob(watch.accountId, watch.jobId);
      // A read that took under EVENTS_POLL_MS / DELIVERY_COST_FACTOR is due again at the next poll.
      const took = Date.now() - started;
      watch.deliveryDueAt = Date.now() + took * DELIVERY_COST_FACTOR - EVENTS_POLL_MS;
    }
    return toJobView(job, watch.delivery);
  }

  private send(watch: Watch, sub: Subscriber, chunk: string): void {
    if (sub.res.writableLength > MAX_QUEUED_BYTES) {
      this.logger.warn({ jobId: watch.jobId }, 'Bulk job event stream: client too slow; closed');
      sub.res.destroy();
      return;
    }
    sub.res.write(chunk);
  }

  private finish(key: string, watch: Watch, sub: Subscriber, last: string): void {
    this.leave(key, watch, sub);
    sub.res.end(last);
  }

  private leave(key: string, watch: Watch, sub: Subscriber): void {
    clearInterval(sub.heartbeat);
    if (!watch.subscribers.delete(sub)) return;
    const left = (this.perAccount.get(watch.accountId) ?? 1) - 1;
    if (left > 0) this.perAccount.set(watch.accountId, left);
    else this.perAccount.delete(watch.accountId);
    if (watch.subscribers.size > 0 || this.watches.get(key) !== watch) return;
    this.watches.delete(key);
    if (watch.timer) clearTimeout(watch.timer);
  }

  private closeAll(): void {
    this.closing = true;
    for (const [key, watch] of [...this.watches])
      for (const sub of [...watch.subscribers]) this.finish(key, watch, sub, '');
  }
}

/** The last event: the job is final (its last state came in the `job` event before). */
function endEvent(job: BulkJobView): string {
  return `event: end\ndata: ${JSON.stringify({ id: job.id, status: job.status })}\n\n`;
}

/** One `job` event (JSON has no raw newlines, so one `data:` line carries it). */
function jobEvent(json: string): string {
  return `event: job\ndata: ${json}\n\n`;
}
