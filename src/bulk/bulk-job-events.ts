import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { sql } from '../database/sql';
import { Tx, UnitOfWork } from '../database/unit-of-work';
import { EVENT_SINK, EventSink, EventType } from '../messaging/events/event-sink';
import { toJobView } from './bulk-job.view';

export type BulkJobEventType = Extract<EventType, `bulk_job.${string}`>;

/**
 * bulk_job.* events (the job object as the API shows it), recorded in the same unit as the status
 * change: `around` opens a unit, runs the change in it (its statements join it) and records the
 * event only when the change says the job moved.
 */
@Injectable()
export class BulkJobEvents {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    @Inject(EVENT_SINK) private readonly sink: EventSink,
  ) {}

  async around<T>(jobId: string, type: BulkJobEventType, change: () => Promise<T>, moved: (result: T) => boolean): Promise<T> {
    return this.uow.transaction(async (tx) => {
      const result = await change();
      if (moved(result)) await this.emit(tx, jobId, type);
      return result;
    });
  }

  async emit(tx: Tx, jobId: string, type: BulkJobEventType): Promise<void> {
    const [row] = await tx.rows(sql('SELECT * FROM bulk_jobs WHERE id = ?', jobId));
    if (!row) return;
    await this.sink.record(tx, [{ accountId: String(row.account_id), type, data: { ...toJobView(row) }, at: this.clock.now() }]);
  }
}
