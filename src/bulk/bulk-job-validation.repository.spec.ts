import type { DataSource } from 'typeorm';
import { openBulkTestDatabase } from './testing/bulk-test-database';
import type { UnitOfWork } from '../database/unit-of-work';
import { BulkJobValidationRepository } from './bulk-job-validation.repository';
import { BulkJobRepository } from './bulk-job.repository';
import { accountIdOf } from '../common/account-id';

describe(BulkJobValidationRepository.name, () => {
  let ds: DataSource;
  let uow: UnitOfWork;
  let validation: BulkJobValidationRepository;
  let jobs: BulkJobRepository;

  beforeAll(async () => {
    ({ ds, uow } = await openBulkTestDatabase());
    validation = new BulkJobValidationRepository(uow);
    jobs = new BulkJobRepository(uow);
  });
  afterAll(async () => {
    await ds.destroy();
  });

  async function validating(id: string, lease: { owner: string; until: number } | null = null): Promise<void> {
    await jobs.create(id, accountIdOf('acc_1'), 'intake', 0, 1);
    await ds.query(
      `UPDATE bulk_jobs SET status = 'validating', total = 3, validated_count = 1, lease_owner = ?, lease_expires_at = ? WHERE id = ?`,
      [lease?.owner ?? null, lease?.until ?? null, id],
    );
  }

  it('leases many validating jobs at once, oldest first, skipping live leases and taking expired ones', async () => {
    await validating('bulk_a');
    await validating('bulk_b', { owner: 'rep_other', until: 5_000 });
    await validating('bulk_c', { owner: 'rep_other', until: 500 });
    await validating('bulk_d');
    const got = await validation.lease('rep_1', 2_000, 1_000, 10);
    expect(got.map((j) => [j.id, j.previousOwner, j.validatedCount, j.total])).toEqual([
      ['bulk_a', null, 1, 3],
      ['bulk_c', 'rep_other', 1, 3],
      ['bulk_d', null, 1, 3],
    ]);
    // Leased now: a second pass finds nothing until they expire.
    expect(await validation.lease('rep_2', 2_000, 1_000, 10)).toEqual([]);
    expect((await validation.lease('rep_2', 9_000, 2_001, 1)).map((j) => j.id)).toEqual(['bulk_a']);
  });

  it('saves the progress of several jobs in one statement, only where the lease is still ours', async () => {
    await validating('bulk_e', { owner: 'rep_1', until: 5_000 });
    await validating('bulk_f', { owner: 'rep_1', until: 5_000 });
    await validating('bulk_g', { owner: 'rep_other', until: 5_000 });
    const progress = [
      { id: 'bulk_e', next: 3, invalid: 0, marks: [] },
      { id: 'bulk_f', next: 2, invalid: 1, marks: [] },
      { id: 'bulk_g', next: 3, invalid: 0, marks: [] },
    ];
    expect(await uow.steps(() => validation.saveProgress(progress, 'rep_1', 6_000, 1_000))).toEqual(
      new Set(['bulk_e', 'bulk_f']),
    );
    expect(await jobs.findOwned(accountIdOf('acc_1'), 'bulk_f')).toMatchObject({
      validatedCount: 2,
      invalidCount: 1,
      leaseExpiresAt: 6_000,
    });
    expect(await jobs.findOwned(accountIdOf('acc_1'), 'bulk_g')).toMatchObject({
      validatedCount: 1,
      invalidCount: 0,
      leaseExpiresAt: 5_000,
    });
  });

  it('queues validated jobs together, only under its own lease', async () => {
    await validating('bulk_h', { owner: 'rep_1', until: 5_000 });
    await validating('bulk_i', { owner: 'rep_other', until: 5_000 });
    expect(await uow.steps(() => validation.queue(['bulk_h', 'bulk_i'], 'rep_1', 1_000))).toEqual(['bulk_h']);
    expect(await jobs.findOwned(accountIdOf('acc_1'), 'bulk_h')).toMatchObject({ status: 'queued', leaseOwner: null });
    expect(await jobs.findOwned(accountIdOf('acc_1'), 'bulk_i')).toMatchObject({
      status: 'validating',
      leaseOwner: 'rep_other',
    });
  });
});
