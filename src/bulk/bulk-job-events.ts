import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { Tx, UnitOfWork } from '../database/unit-of-work';
import { EVENT_SINK, EventSink, EventType } from '../messaging/events/event-sink';
import { toJobView } from './bulk-job.view';
import { BulkJobRepository } from './bulk-job.repository';

export type BulkJobEventType = Extract<EventType, `bulk_job.${string}`>;

/**
 * bulk_job.* events (the job object as the API shows it), recorded in the same unit as the status
 * change: `around` opens a unit, runs the change in it (the repository's statements join it) and
 * records the event only when the change says the job moved.
 */
@Injectable()
export class BulkJobEvents {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly jobs: BulkJobRepository,
    @Inject(EVENT_SINK) private readonly sink: EventSink,
  ) {}

  async around<T>(
    jobId: string,
    type: BulkJobEventType,
    change: () => Promise<T>,
    moved: (result: T) => boolean,
  ): Promise<T> {
    return this.aroundEach(type, change, (result) => (moved(result) ? [jobId] : []));
  }

  /** The same for a change of many jobs at once (validation's queue UPDATE): one event per job the change says moved. */
  async aroundEach<T>(
    type: BulkJobEventType,
    change: () => Promise<T>,
    moved: (result: T) => readonly string[],
  ): Promise<T> {
    return this.uow.transaction(async (tx) => {
      const result = await change();
      const ids = moved(result);
      if (ids.length) await this.emit(tx, ids, type);
      return result;
    });
  }

  /**
   * One event per job of `jobIds`, each job read back through the repository in `tx`'s unit (the
   * caller's open unit, which the repository joins) as the change left it.
   */
  async emit(tx: Tx, jobIds: string | readonly string[], type: BulkJobEventType): Promise<void> {
    const jobs = await this.jobs.findByIds(typeof jobIds === 'string' ? [jobIds] : jobIds);
    if (!jobs.length) return;
    const at = this.clock.now();
    await this.sink.record(
      tx,
      jobs.map((job) => ({ accountId: job.accountId, type, data: { ...toJobView(job) }, at })),
    );
  }
}
