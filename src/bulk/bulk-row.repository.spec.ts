import type { DataSource } from 'typeorm';
import { openBulkTestDatabase } from './testing/bulk-test-database';
import type { UnitOfWork } from '../database/unit-of-work';
import { BulkJobLeases } from './bulk-job-leases.repository';
import { BulkJobRepository } from './bulk-job.repository';
import { toJobRecord } from './bulk-records';
import { BulkRowRepository, rowStatements } from './bulk-row.repository';

describe(BulkRowRepository.name, () => {
  let ds: DataSource;
  let uow: UnitOfWork;
  let rows: BulkRowRepository;
  let jobs: BulkJobRepository;
  let leases: BulkJobLeases;
  let ids = 0;

  beforeAll(async () => {
    ({ ds, uow } = await openBulkTestDatabase());
    rows = new BulkRowRepository(uow);
    jobs = new BulkJobRepository(uow);
    leases = new BulkJobLeases(uow);
  });
  afterAll(async () => {
    await ds.destroy();
  });

  /** A `running` job leased to `rep_1` with `n` pending rows. */
  async function runningJob(n: number): Promise<string> {
    const id = `bulk_${++ids}`;
    await jobs.create(id, 'acc_1', 'rep_1', 10_000, 1);
    await uow.run(rowStatements.insertBatch(id, Array.from({ length: n }, (_, i) => ({ idx: i, to: `+9665000000${i}`, channel: 'local_sms', payload: `{"i":${i}}` }))));
    await ds.query(`UPDATE bulk_jobs SET status = 'running', total = ?, pending_count = ? WHERE id = ?`, [n, n, id]);
    return id;
  }

  it('claims a window in index order with message ids, rows left sending first', async () => {
    const id = await runningJob(5);
    let n = 0;
    const first = await uow.steps(() => rows.claimWindow(id, 2, true, () => `msg_${++n}`));
    expect(first.rows.map((r) => [r.idx, r.status, r.messageId, r.payload])).toEqual([
      [0, 'sending', 'msg_1', '{"i":0}'],
      [1, 'sending', 'msg_2', '{"i":1}'],
    ]);
    // Recovering: the rows still `sending` come back with the ids they were claimed under.
    const again = await uow.steps(() => rows.claimWindow(id, 3, true, () => `msg_${++n}`));
    expect(again.rows.map((r) => [r.idx, r.messageId])).toEqual([
      [0, 'msg_1'],
      [1, 'msg_2'],
    ]);
    const next = await uow.steps(() => rows.claimWindow(id, 3, false, () => `msg_${++n}`));
    expect(next.rows.map((r) => r.idx)).toEqual([2, 3, 4]);
  });

  it('settles a window once: outcomes, unsent rows back to pending, counters moved by the rows that moved', async () => {
    const id = await runningJob(4);
    await uow.steps(() => rows.claimWindow(id, 4, false, () => `msg_${Math.random()}`));
    const outcomes = [
      { idx: 0, status: 'sent' as const, code: null, message: null, at: 50 },
      { idx: 1, status: 'failed' as const, code: 'PROVIDER_REJECTED' as const, message: 'no', at: 60 },
    ];
    const close = function* () {
      const moved = yield* rows.settleWindow(id, outcomes, [3]);
      yield* leases.closeWindow(id, 'rep_1', moved.sent, moved.failed, null, 70);
      return moved;
    };
    expect(await uow.steps(close)).toEqual({ sent: 1, failed: 1 });
    // A second settle of the same rows (a stalled replica) moves and counts nothing.
    expect(await uow.steps(close)).toEqual({ sent: 0, failed: 0 });
    const page = await rows.page(id, null, null, 10);
    expect(page.map((r) => [r.idx, r.status, r.errorCode, r.sentAt])).toEqual([
      [0, 'sent', null, 50],
      [1, 'failed', 'PROVIDER_REJECTED', 60],
      [2, 'sending', null, null],
      [3, 'pending', null, null],
    ]);
    const job = await jobs.findOwned('acc_1', id);
    expect(job && [job.pendingCount, job.sentCount, job.failedCount]).toEqual([2, 1, 1]);
  });

  it('reads the first invalid row and the channel of the next payable row', async () => {
    const id = await runningJob(3);
    for (const s of rows.markInvalid(id, [{ idx: 2, code: 'INVALID_RECIPIENT', message: 'bad' }])) await uow.run(s);
    expect(await rows.firstInvalid(id)).toMatchObject({ idx: 2, status: 'invalid', errorCode: 'INVALID_RECIPIENT', errorMessage: 'bad' });
    expect(await rows.firstChannel(id, 'pending')).toBe('local_sms');
    expect(await rows.firstChannel(id, 'failed')).toBeNull();
  });

  it('converts driver rows once: numbers given as strings (mysql2) become numbers', () => {
    const r = toJobRecord({ id: 'bulk_x', account_id: 'acc_1', status: 'queued', total: '300', pending_count: '12', lease_expires_at: null, created_at: '1732000000000', messages_per_second: '10' });
    expect(r).toMatchObject({ total: 300, pendingCount: 12, leaseExpiresAt: null, createdAt: 1_732_000_000_000, messagesPerSecond: 10, name: null });
  });
});
