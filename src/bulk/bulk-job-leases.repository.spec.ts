import type { DataSource } from 'typeorm';
import { openBulkTestDatabase } from './testing/bulk-test-database';
import type { UnitOfWork } from '../database/unit-of-work';
import { BulkJobLeasesRepository, leaseStatements } from './bulk-job-leases.repository';
import { BulkJobRepository } from './bulk-job.repository';
import { accountIdOf } from '../common/account-id';

describe(BulkJobLeasesRepository.name, () => {
  let ds: DataSource;
  let uow: UnitOfWork;
  let leases: BulkJobLeasesRepository;
  let jobs: BulkJobRepository;

  beforeAll(async () => {
    ({ ds, uow } = await openBulkTestDatabase());
    leases = new BulkJobLeasesRepository(uow);
    jobs = new BulkJobRepository(uow);
  });
  afterAll(async () => {
    await ds.destroy();
  });

  async function pausedJob(id: string, reason: string, resumeAt: number): Promise<void> {
    await jobs.create(id, accountIdOf('acc_1'), 'rep_1', 10, 1);
    await ds.query(`UPDATE bulk_jobs SET status = 'paused', pause_reason = ?, resume_at = ? WHERE id = ?`, [
      reason,
      resumeAt,
      id,
    ]);
  }
  const states = async () =>
    Object.fromEntries(
      (
        (await ds.query('SELECT id, status, pause_reason, resume_at FROM bulk_jobs ORDER BY id')) as {
          id: string;
          status: string;
          pause_reason: string | null;
          resume_at: number | null;
        }[]
      ).map((r) => [r.id, [r.status, r.pause_reason, r.resume_at === null ? null : Number(r.resume_at)]]),
    );

  it('resumes the rate-limited jobs whose back-off ended, a limited number per call, and no other paused job', async () => {
    for (const id of ['bulk_a', 'bulk_b', 'bulk_c']) await pausedJob(id, 'provider_rate_limit', 1_000);
    await pausedJob('bulk_later', 'provider_rate_limit', 5_000);
    // (A back-off time long past, so only the reason keeps these two paused.)
    await pausedJob('bulk_money', 'insufficient_balance', 0);
    await pausedJob('bulk_user', 'user', 0);

    expect(await leases.resumeRateLimited(2_000, 2)).toBe(2);
    expect(await leases.resumeRateLimited(2_000, 2)).toBe(1);
    expect(await leases.resumeRateLimited(2_000, 2)).toBe(0);
    expect(await states()).toEqual({
      bulk_a: ['queued', null, null],
      bulk_b: ['queued', null, null],
      bulk_c: ['queued', null, null],
      bulk_later: ['paused', 'provider_rate_limit', 5_000],
      bulk_money: ['paused', 'insufficient_balance', 0],
      bulk_user: ['paused', 'user', 0],
    });
  });

  it('moves by id only a job still due: one resumed or paused otherwise between the read and the UPDATE stays as it is', async () => {
    await pausedJob('bulk_raced', 'provider_rate_limit', 1_000);
    await ds.query(`UPDATE bulk_jobs SET pause_reason = 'user', resume_at = NULL WHERE id = ?`, ['bulk_raced']);
    expect(await uow.exec(leaseStatements.resumeRateLimited(['bulk_raced'], 2_000))).toBe(0);
    expect((await states()).bulk_raced).toEqual(['paused', 'user', null]);
  });
});
