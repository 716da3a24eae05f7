import type { DataSource } from 'typeorm';
import { insertRunningJob, openBulkTestDatabase } from './testing/bulk-test-database';
import type { UnitOfWork } from '../database/unit-of-work';
import { toJobRecord } from './bulk-records';
import { BulkRowRepository } from './bulk-row.repository';

describe(BulkRowRepository.name, () => {
  let ds: DataSource;
  let uow: UnitOfWork;
  let rows: BulkRowRepository;
  let ids = 0;

  beforeAll(async () => {
    ({ ds, uow } = await openBulkTestDatabase());
    rows = new BulkRowRepository(uow);
  });
  afterAll(async () => {
    await ds.destroy();
  });

  /** A `running` job leased to `rep_1` with `n` pending rows. */
  const runningJob = (n: number) => insertRunningJob({ ds, uow }, `bulk_${++ids}`, n);

  it('reads the first invalid row and the channel of the next payable row', async () => {
    const id = await runningJob(3);
    for (const s of rows.markInvalid(id, [{ idx: 2, code: 'INVALID_RECIPIENT', message: 'bad' }])) await uow.run(s);
    expect(await rows.firstInvalid(id)).toMatchObject({
      idx: 2,
      status: 'invalid',
      errorCode: 'INVALID_RECIPIENT',
      errorMessage: 'bad',
    });
    expect(await rows.firstChannel(id, 'pending')).toBe('local_sms');
    expect(await rows.firstChannel(id, 'failed')).toBeNull();
  });

  it('converts driver rows once: numbers given as strings (mysql2) become numbers', () => {
    const r = toJobRecord({
      id: 'bulk_x',
      account_id: 'acc_1',
      status: 'queued',
      total: '300',
      pending_count: '12',
      lease_expires_at: null,
      created_at: '1732000000000',
      messages_per_second: '10',
    });
    expect(r).toMatchObject({
      total: 300,
      pendingCount: 12,
      leaseExpiresAt: null,
      createdAt: 1_732_000_000_000,
      messagesPerSecond: 10,
      name: null,
    });
  });
});
