import { Injectable, OnModuleInit } from '@nestjs/common';
import { ErasureTarget, RecipientEraser, RecipientErasers } from '../common/erasure/recipient-erasers';
import { inList, num, query, Row, sql } from '../database/sql';
import { toRowRecord } from './bulk-records';
import { UnitOfWork } from '../database/unit-of-work';

/** Rows of the account's jobs addressed to the target (bulk_rows has no account column: kept to the account's jobs). */
const MATCH = (n: number) => `to_addr IN (${inList(n)}) AND job_id IN (SELECT id FROM bulk_jobs WHERE account_id = ?)`;

/** A row found by `waiting` (only whether one is found matters). */
const toIdx = (r: Row): number => num(r.idx);

/**
 * Bulk rows' part of an erasure: `to` -> hash, the row's payload (text, variables) -> `{}` and the
 * error text removed; status, message id, attempt and times kept, and the job's counters are not
 * touched. A row still `pending` or `sending` is the dispatcher's: the erasure waits until it settles.
 * Rows are found by `to` as the request gave it (ix_bulk_rows_to): the normalised form and the other
 * forms of the target; a row written in a national format is found through its message instead.
 */
@Injectable()
export class BulkRowsEraser implements RecipientEraser, OnModuleInit {
  readonly kind = 'bulkRows';

  constructor(
    private readonly uow: UnitOfWork,
    private readonly erasers: RecipientErasers,
  ) {}

  onModuleInit(): void {
    this.erasers.register(this);
  }

  async erase(t: ErasureTarget, limit: number): Promise<number> {
    const keys = await this.uow.read(
      query(
        toRowRecord,
        sql(
          `SELECT job_id, idx FROM bulk_rows WHERE ${MATCH(t.forms.length)} AND status NOT IN ('pending', 'sending') LIMIT ${limit}`,
          ...t.forms,
          t.accountId,
        ),
      ),
    );
    const byJob = new Map<string, number[]>();
    for (const k of keys) byJob.set(k.jobId, [...(byJob.get(k.jobId) ?? []), k.idx]);
    let erased = 0;
    for (const [jobId, idxs] of byJob) {
      erased += await this.uow.exec(
        sql(
          `UPDATE bulk_rows SET to_addr = ?, payload = '{}', error_message = NULL WHERE job_id = ? AND idx IN (${inList(idxs.length)})`,
          t.hash,
          jobId,
          ...idxs,
        ),
      );
    }
    return erased;
  }

  async waiting(t: ErasureTarget): Promise<boolean> {
    const rows = await this.uow.read(
      query(toIdx, sql(`SELECT idx FROM bulk_rows WHERE ${MATCH(t.forms.length)} LIMIT 1`, ...t.forms, t.accountId)),
    );
    return rows.length > 0;
  }
}
