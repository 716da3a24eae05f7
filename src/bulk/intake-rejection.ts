import { sql, StmtResult, Steps } from '../database/sql';

/**
 * Unit of work: an `accepting` job becomes `rejected` / INTAKE_INCOMPLETE and loses its rows. The
 * intake rejects its own job (client gone); the reaper passes `leaseExpiredBefore`, so a job whose
 * upload is still renewing its lease is left alone. Returns 1 when the job was rejected, else 0.
 */
export function* rejectIncompleteIntake(jobId: string, now: number, leaseExpiredBefore?: number): Steps<number> {
  const leaseCheck = leaseExpiredBefore === undefined ? '' : ' AND (lease_expires_at IS NULL OR lease_expires_at < ?)';
  const r: StmtResult = yield sql(
    `UPDATE bulk_jobs SET status = 'rejected', error_code = 'INTAKE_INCOMPLETE', error_message = ?, total = 0, lease_owner = NULL, lease_expires_at = NULL, updated_at = ?
     WHERE id = ? AND status = 'accepting'${leaseCheck}`,
    'The upload stopped before every row was stored', now, jobId, ...(leaseExpiredBefore === undefined ? [] : [leaseExpiredBefore]),
  );
  if (r.affected) yield sql('DELETE FROM bulk_rows WHERE job_id = ?', jobId);
  return r.affected;
}
