import type { DataSource } from 'typeorm';
import { openBulkTestDatabase } from './testing/bulk-test-database';
import type { UnitOfWork } from '../database/unit-of-work';
import { BulkJobLeases } from './bulk-job-leases.repository';
import { BulkJobRepository } from './bulk-job.repository';

describe(BulkJobLeases.name, () => {
  let ds: DataSource;
  let uow: UnitOfWork;
  let leases: BulkJobLeases;
  let jobs: BulkJobRepository;

  beforeAll(async () => {
    ({ ds, uow } = await openBulkTestDatabase());
    leases = new BulkJobLeases(uow);
    jobs = new BulkJobRepository(uow);
  });
  afterAll(async () => {
    await ds.destroy();
  });

  async function validating(id: string, lease: { owner: string; until: number } | null = null): Promise<void> {
    await jobs.create(id, 'acc_1', 'intake', 0, 1);
    await ds.query(`UPDATE bulk_jobs SET status = 'validating', total = 3, validated_count = 1, lease_owner = ?, lease_expires_at = ? WHERE id = ?`, [lease?.owner ?? null, lease?.until ?? null, id]);
  }

  it('leases many validating jobs at once, oldest first, skipping live leases and taking expired ones', async () => {
    await validating('bulk_a');
    await validating('bulk_b', { owner: 'rep_other', until: 5_000 });
    await validating('bulk_c', { owner: 'rep_other', until: 500 });
    await validating('bulk_d');
    const got = await leases.leaseForValidation('rep_1', 2_000, 1_000, 10);
    expect(got.map((j) => [j.id, j.previousOwner, j.validatedCount, j.total])).toEqual([
      ['bulk_a', null, 1, 3],
      ['bulk_c', 'rep_other', 1, 3],
      ['bulk_d', null, 1, 3],
    ]);
    // Leased now: a second pass finds nothing until they expire.
    expect(await leases.leaseForValidation('rep_2', 2_000, 1_000, 10)).toEqual([]);
    expect((await leases.leaseForValidation('rep_2', 9_000, 2_001, 1)).map((j) => j.id)).toEqual(['bulk_a']);
  });

  it('saves progress and concludes only under its own lease', async () => {
    await validating('bulk_e', { owner: 'rep_1', until: 5_000 });
    expect(await uow.steps(() => leases.saveValidationProgress('bulk_e', 'rep_2', 3, [], 0, 6_000, 1_000))).toBe(false);
    expect(await uow.steps(() => leases.saveValidationProgress('bulk_e', 'rep_1', 3, [], 0, 6_000, 1_000))).toBe(true);
    expect(await leases.queueValidated('bulk_e', 'rep_2', 1_000)).toBe(false);
    expect(await leases.queueValidated('bulk_e', 'rep_1', 1_000)).toBe(true);
    expect(await jobs.findOwned('acc_1', 'bulk_e')).toMatchObject({ status: 'queued', validatedCount: 3, leaseOwner: null });
  });
});
