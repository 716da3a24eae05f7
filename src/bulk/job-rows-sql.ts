import { Stmt } from '../database/sql';

/** A row of one of several jobs. */
export type JobRow<T> = T & { jobId: string; idx: number };

/** `SELECT * FROM (<one job's read>) r0 UNION ALL ...`: several jobs' reads in one statement, each job's part run as its own read (index range, order, limit). */
export function unionOfJobs<S>(spans: S[], part: (s: S) => Stmt): Stmt {
  const parts = spans.map(part);
  return {
    sql: parts.map((p, i) => `SELECT * FROM (${p.sql}) r${i}`).join(' UNION ALL '),
    params: parts.flatMap((p) => p.params),
  };
}
