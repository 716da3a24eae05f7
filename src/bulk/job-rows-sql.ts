import { inList, SqlParam, Stmt } from '../database/sql';

/** A row of one of several jobs. */
export type JobRow<T> = T & { jobId: string; idx: number };

export function byJob<T>(rows: JobRow<T>[]): Map<string, JobRow<T>[]> {
  const out = new Map<string, JobRow<T>[]>();
  for (const r of rows) {
    const list = out.get(r.jobId);
    if (list) list.push(r);
    else out.set(r.jobId, [r]);
  }
  return out;
}

/** `CASE job_id WHEN ? THEN CASE idx WHEN ? THEN ? ... END ... END`: a value per row, looked up per job then per index. */
export function nestedCase<T>(jobs: Map<string, JobRow<T>[]>, value: (r: JobRow<T>) => SqlParam): Stmt {
  const params: SqlParam[] = [];
  const parts: string[] = [];
  for (const [jobId, rows] of jobs) {
    params.push(jobId);
    for (const r of rows) params.push(r.idx, value(r));
    parts.push(`WHEN ? THEN CASE idx ${rows.map(() => 'WHEN ? THEN ?').join(' ')} END`);
  }
  return { sql: `CASE job_id ${parts.join(' ')} END`, params };
}

/** `(job_id = ? AND idx IN (...)) OR ...`: each job's rows by primary key. */
export function ofJobs<T>(jobs: Map<string, JobRow<T>[]>): Stmt {
  const params: SqlParam[] = [];
  const parts: string[] = [];
  for (const [jobId, rows] of jobs) {
    params.push(jobId, ...rows.map((r) => r.idx));
    parts.push(`(job_id = ? AND idx IN (${inList(rows.length)}))`);
  }
  return { sql: parts.join(' OR '), params };
}


/** `SELECT * FROM (<one job's read>) r0 UNION ALL ...`: several jobs' reads in one statement, each job's part run as its own read (index range, order, limit). */
export function unionOfJobs<S>(spans: S[], part: (s: S) => Stmt): Stmt {
  const parts = spans.map(part);
  return { sql: parts.map((p, i) => `SELECT * FROM (${p.sql}) r${i}`).join(' UNION ALL '), params: parts.flatMap((p) => p.params) };
}
