import { Injectable } from '@nestjs/common';
import { inList, query, Row, sql } from '../database/sql';
import { UnitOfWork } from '../database/unit-of-work';
import type { AccountId } from '../common/account-id';

/** What receipts said about a bulk job's messages. */
export interface JobDelivery {
  /** Messages that reached the recipient's carrier or device: status `delivered` or `read`. */
  delivered: number;
  /** Messages the recipient read (status `read`); also counted in `delivered`. */
  read: number;
  /** Sent messages a receipt failed: `failed` with UNDELIVERED, EXPIRED or REJECTED_BY_CARRIER. */
  undelivered: number;
}

/** Error codes a receipt sets on a sent message that did not arrive (the lifecycle's receipt writer). */
export const UNDELIVERED_CODES = ['UNDELIVERED', 'EXPIRED', 'REJECTED_BY_CARRIER'] as const;

/** Messages of one bulk job in one counted status. */
interface BulkStatusCount {
  bulkJobId: string;
  status: string;
  n: number;
}

function toBulkStatusCount(r: Row): BulkStatusCount {
  return { bulkJobId: String(r.bulk_job_id), status: String(r.status), n: Number(r.n) };
}

export const NO_DELIVERY: Readonly<JobDelivery> = Object.freeze({ delivered: 0, read: 0, undelivered: 0 });

/**
 * Delivery counts of bulk jobs, computed from the message log when a job is read (no counters to keep
 * in step with receipts). Index `ix_messages_bulk_status` (bulk_job_id, status, error_code,
 * account_id) answers it alone, reading only the job's delivered, read and failed entries (the plain
 * `status IN` lets the embedded database seek per status too; an OR of the two cases made it scan the
 * whole job). Measured on a 200k-message job (150k counted): ~50-90 ms embedded, ~0.1 s on the
 * server database on a quiet box.
 */
@Injectable()
export class DeliveryCounts {
  constructor(private readonly uow: UnitOfWork) {}

  /** Counts per job id (every id present, zeros when nothing arrived), one query for all of them. */
  async ofBulkJobs(accountId: AccountId, jobIds: readonly string[]): Promise<Map<string, JobDelivery>> {
    const out = new Map<string, JobDelivery>(jobIds.map((id) => [id, { ...NO_DELIVERY }]));
    if (!jobIds.length) return out;
    const rows = await this.uow.read(
      query(
        toBulkStatusCount,
        sql(
          `SELECT bulk_job_id, status, COUNT(*) AS n FROM messages
         WHERE bulk_job_id IN (${inList(jobIds.length)}) AND account_id = ?
           AND status IN ('delivered', 'read', 'failed') AND (status <> 'failed' OR error_code IN (${inList(UNDELIVERED_CODES.length)}))
         GROUP BY bulk_job_id, status`,
          ...jobIds,
          accountId,
          ...UNDELIVERED_CODES,
        ),
      ),
    );
    for (const r of rows) {
      const c = out.get(r.bulkJobId);
      if (!c) continue;
      if (r.status === 'failed') c.undelivered += r.n;
      else c.delivered += r.n;
      if (r.status === 'read') c.read += r.n;
    }
    return out;
  }

  async ofBulkJob(accountId: AccountId, jobId: string): Promise<JobDelivery> {
    return (await this.ofBulkJobs(accountId, [jobId])).get(jobId) ?? { ...NO_DELIVERY };
  }
}
